<?php
/**
 * The plugin's tests, with PHP alone (no Composer, no network, no WordPress):
 *
 *     php apps/woocommerce/tests/run.php
 *
 * First Sillage_Core on its own (nothing of WordPress is defined yet, so a
 * call to it would fail), then checks on the plugin's sources, then the
 * WordPress side against stand-ins for the WordPress and WooCommerce
 * functions it calls (wordpress-stubs.php, wiring-tests.php). One line per
 * test; the exit code is 1 when any fails.
 *
 * @package Sillage
 */

define( 'ABSPATH', __DIR__ . '/' );
define( 'SILLAGE_DIR', dirname( __DIR__ ) . '/sillage' );

require SILLAGE_DIR . '/includes/class-sillage-core.php';

/** A failed expectation. */
final class Sillage_Test_Failure extends Exception {
}

$sillage_tests = array();

/**
 * Registers a test.
 *
 * @param string   $name What it checks.
 * @param callable $fn   The test.
 */
function test( $name, $fn ) {
	global $sillage_tests;
	$sillage_tests[] = array( $name, $fn );
}

/**
 * Runs the tests registered so far, printing a line for each.
 *
 * @return int How many failed.
 */
function run_tests() {
	global $sillage_tests;
	$failed = 0;
	foreach ( $sillage_tests as $t ) {
		list( $name, $fn ) = $t;
		try {
			$fn();
			echo "ok - {$name}\n";
		} catch ( Throwable $e ) {
			++$failed;
			$where = $e instanceof Sillage_Test_Failure ? '' : ' (' . get_class( $e ) . ' at ' . basename( $e->getFile() ) . ':' . $e->getLine() . ')';
			echo "not ok - {$name}: " . $e->getMessage() . $where . "\n";
		}
	}
	$sillage_tests = array();
	return $failed;
}

/**
 * Expects two values to be identical.
 *
 * @param mixed  $expected What should be.
 * @param mixed  $actual   What is.
 * @param string $what     What is compared.
 * @throws Sillage_Test_Failure When they differ.
 */
function eq( $expected, $actual, $what = 'value' ) {
	if ( $expected !== $actual ) {
		throw new Sillage_Test_Failure( $what . ': expected ' . var_export( $expected, true ) . ', got ' . var_export( $actual, true ) );
	}
}

/**
 * Expects a condition to hold.
 *
 * @param bool   $condition The condition.
 * @param string $what      What it means.
 * @throws Sillage_Test_Failure When it does not.
 */
function ok( $condition, $what ) {
	if ( true !== $condition ) {
		throw new Sillage_Test_Failure( $what );
	}
}

/**
 * Expects a text to contain another.
 *
 * @param string $needle   What should be there.
 * @param string $haystack Where.
 * @param string $what     What is checked.
 * @throws Sillage_Test_Failure When it is not.
 */
function contains( $needle, $haystack, $what = 'text' ) {
	if ( false === strpos( (string) $haystack, $needle ) ) {
		throw new Sillage_Test_Failure( $what . ' does not contain ' . var_export( $needle, true ) . ': ' . var_export( $haystack, true ) );
	}
}

/**
 * The plugin's PHP files, relative to its folder.
 *
 * @return string[]
 */
function plugin_files() {
	$files = array();
	$it    = new RecursiveIteratorIterator( new RecursiveDirectoryIterator( SILLAGE_DIR, FilesystemIterator::SKIP_DOTS ) );
	foreach ( $it as $file ) {
		if ( 'php' === $file->getExtension() ) {
			$files[] = substr( $file->getPathname(), strlen( SILLAGE_DIR ) + 1 );
		}
	}
	sort( $files );
	return $files;
}

/**
 * A realistic order from an Arabic perfume shop: a simple product, a
 * variation (100 ml of a perfume whose parent product is 501), a discounted
 * line with WooCommerce's unrounded line total.
 *
 * @return array
 */
function sample_order() {
	return array(
		'id'       => 4321,
		'total'    => '1035.00',
		'currency' => 'SAR',
		'items'    => array(
			array(
				'product_id' => 310,
				'quantity'   => 1,
				'total'      => '250.00',
			),
			array(
				'product_id'   => 501,
				'variation_id' => 777,
				'quantity'     => 2,
				'total'        => '540.00',
			),
			array(
				'product_id' => 88,
				'quantity'   => 3,
				'total'      => '100.000000000001',
			),
		),
	);
}

// ---------------------------------------------------------------------------
// Sillage_Core
// ---------------------------------------------------------------------------

test(
	'core: no WordPress function is defined while the core is tested',
	function () {
		ok( ! function_exists( 'add_action' ) && ! function_exists( 'get_option' ) && ! function_exists( 'esc_html' ), 'WordPress stand-ins are loaded too early' );
	}
);

test(
	'connect URL: the store, the admin\'s email and the proof are encoded, the secret itself is not in it',
	function () {
		$secret = str_repeat( 'ab', 32 );
		$url    = Sillage_Core::connect_url( 'https://sillage.example', 'https://عطور.example/متجر?lang=ar&x=1', $secret, 'owner+shop@attar.example' );
		eq(
			'https://sillage.example/console/woocommerce/connect?store=' . urlencode( 'https://عطور.example/متجر?lang=ar&x=1' )
			. '&proof=' . hash( 'sha256', $secret ) . '&email=owner%2Bshop%40attar.example',
			$url,
			'connect URL'
		);
		contains( 'store=https%3A%2F%2F%D8%B9%D8%B7%D9%88%D8%B1.example%2F', $url, 'connect URL' );
		ok( false === strpos( $url, $secret ), 'the secret is in the URL' );
		parse_str( (string) parse_url( $url, PHP_URL_QUERY ), $query );
		eq( array( 'store', 'proof', 'email' ), array_keys( $query ), 'query parameters' );
		eq( 'https://عطور.example/متجر?lang=ar&x=1', $query['store'], 'store, decoded' );
		eq( 'owner+shop@attar.example', $query['email'], 'email, decoded' );
		eq( 'https://sillage.example/base/console/woocommerce/connect?store=x&proof=' . hash( 'sha256', 's' ) . '&email=', Sillage_Core::connect_url( 'https://sillage.example/base/', 'x', 's', '' ), 'trailing slash of the service' );
		eq(
			'https://sillage.example/console/woocommerce/connect?store=x&proof=' . hash( 'sha256', 's' ) . '&email=&admin=' . urlencode( 'https://shop.example/wp/wp-admin/admin.php' ),
			Sillage_Core::connect_url( 'https://sillage.example', 'x', 's', '', 'https://shop.example/wp/wp-admin/admin.php' ),
			'the admin page when WordPress lives in its own folder'
		);
	}
);

test(
	'connect secret: 32 random bytes in hex, and only that is a secret',
	function () {
		$a = Sillage_Core::new_secret();
		$b = Sillage_Core::new_secret();
		ok( 1 === preg_match( '/^[0-9a-f]{64}$/', $a ), 'not 64 hex characters: ' . $a );
		ok( $a !== $b, 'two secrets are the same' );
		ok( Sillage_Core::is_secret( $a ), 'a new secret is not a secret' );
		foreach ( array( '', strtoupper( $a ), substr( $a, 1 ), $a . '0', null, 42, array() ) as $bad ) {
			ok( ! Sillage_Core::is_secret( $bad ), 'accepted as a secret: ' . var_export( $bad, true ) );
		}
		eq( hash( 'sha256', $a ), Sillage_Core::proof( $a ), 'proof' );
	}
);

test(
	'installation key: an Ed25519 secret key in base64url, its public half 43 characters',
	function () {
		$a = Sillage_Core::new_installation_key();
		$b = Sillage_Core::new_installation_key();
		ok( Sillage_Core::is_installation_key( $a ), 'a new key is not a key: ' . $a );
		ok( $a !== $b, 'two keys are the same' );
		$public = Sillage_Core::installation_public_key( $a );
		ok( 1 === preg_match( '/^[A-Za-z0-9_-]{43}$/', $public ), 'public key: ' . $public );
		eq( $public, Sillage_Core::installation_public_key( $a ), 'the same public key each time' );
		ok( Sillage_Core::installation_public_key( $b ) !== $public, 'two keys share a public key' );
		foreach ( array( '', substr( $a, 1 ), $a . 'A', str_replace( substr( $a, 0, 1 ), '+', $a ), null, 42 ) as $bad ) {
			ok( ! Sillage_Core::is_installation_key( $bad ), 'accepted as a key: ' . var_export( $bad, true ) );
		}
		eq( 'aGk', Sillage_Core::base64url( 'hi' ), 'base64url without padding' );
		eq( '-_8', Sillage_Core::base64url( "\xfb\xff" ), 'base64url alphabet' );
	}
);

test(
	'connection: confirmed only for the pending proof, within the hour, signed over the challenge with the installation key',
	function () {
		$secret    = str_repeat( '5e', 32 );
		$proof     = hash( 'sha256', $secret );
		$challenge = str_repeat( 'Qx_-', 10 ) . 'abc';
		$key       = Sillage_Core::new_installation_key();
		$now       = 1800000000;
		$answer    = Sillage_Core::connection_answer( $secret, $now - 3600, $now, 3600, $proof, $challenge, $key );
		eq( array( 'proof', 'key', 'signature' ), array_keys( (array) $answer ), 'answer' );
		eq( $proof, $answer['proof'], 'proof' );
		eq( Sillage_Core::installation_public_key( $key ), $answer['key'], 'key' );
		eq( 86, strlen( $answer['signature'] ), 'signature length' );
		$raw = function ( $text ) {
			return base64_decode( strtr( $text, '-_', '+/' ) );
		};
		ok(
			sodium_crypto_sign_verify_detached( $raw( $answer['signature'] ), "sillage-woocommerce-connection\n{$proof}\n{$challenge}", $raw( $answer['key'] ) ),
			'the signature does not verify'
		);
		$refused = array(
			'another proof'            => array( $secret, $now, $now, 3600, hash( 'sha256', 'other' ), $challenge, $key ),
			'a proof in capitals'      => array( $secret, $now, $now, 3600, strtoupper( $proof ), $challenge, $key ),
			'no proof'                 => array( $secret, $now, $now, 3600, null, $challenge, $key ),
			'over an hour'             => array( $secret, $now - 3601, $now, 3600, $proof, $challenge, $key ),
			'no connect pending'       => array( '', $now, $now, 3600, hash( 'sha256', '' ), $challenge, $key ),
			'a short challenge'        => array( $secret, $now, $now, 3600, $proof, substr( $challenge, 1 ), $key ),
			'a challenge of other text' => array( $secret, $now, $now, 3600, $proof, str_repeat( '=', 43 ), $key ),
			'no installation key'      => array( $secret, $now, $now, 3600, $proof, $challenge, '' ),
		);
		foreach ( $refused as $what => $args ) {
			eq( null, call_user_func_array( array( 'Sillage_Core', 'connection_answer' ), $args ), $what );
		}
	}
);

test(
	'service URL: https kept without its trailing slash; http only on this machine or when allowed; anything odd refused',
	function () {
		eq( 'https://sillage.example', Sillage_Core::normalize_service_url( '  https://Sillage.Example/  ' ), 'trimmed, host lowercased' );
		eq( 'https://sillage.example:8443/reco', Sillage_Core::normalize_service_url( 'https://sillage.example:8443/reco/' ), 'port and path' );
		eq( 'http://localhost:3000', Sillage_Core::normalize_service_url( 'http://localhost:3000' ), 'localhost' );
		eq( 'http://127.0.0.1:3000', Sillage_Core::normalize_service_url( 'http://127.0.0.1:3000/' ), 'loopback' );
		eq( '', Sillage_Core::normalize_service_url( 'http://sillage.example' ), 'plain http' );
		eq( 'http://sillage.test', Sillage_Core::normalize_service_url( 'http://sillage.test', true ), 'plain http when allowed' );
		$bad = array(
			'',
			'sillage.example',
			'//sillage.example',
			'ftp://sillage.example',
			'javascript:alert(1)',
			'https://user:pass@sillage.example',
			'https://sillage.example/?x=1',
			'https://sillage.example/#top',
			'https://sillage.example/"><script>',
			"https://sillage.example/\nX: y",
			'https://سياج.example',
			'https://-bad-.example',
			'https:sillage.example',
			'https://sillage.example\\@evil.example',
			str_repeat( 'https://a.example/', 200 ),
			null,
			array( 'https://sillage.example' ),
		);
		foreach ( $bad as $url ) {
			eq( '', Sillage_Core::normalize_service_url( $url ), 'accepted ' . var_export( $url, true ) );
		}
	}
);

test(
	'connect token: URL-safe characters only, at most 2,000',
	function () {
		ok( Sillage_Core::is_connect_token( 'ct_3f9a-Zz.09~_' ), 'a token is refused' );
		ok( Sillage_Core::is_connect_token( str_repeat( 'a', 2000 ) ), '2,000 characters are refused' );
		ok( Sillage_Core::is_connect_token( 'eyJzIjoiaHR0cHM6Ly9hdHRhci5leGFtcGxlIn0.3q2-7w_AbC' ), 'a payload.signature token is refused' );
		foreach ( array( '', str_repeat( 'a', 2001 ), 'a b', 'a"b', '<script>', "a\nb", 'a&b=c', null, 12 ) as $bad ) {
			ok( ! Sillage_Core::is_connect_token( $bad ), 'accepted ' . var_export( $bad, true ) );
		}
		eq(
			array(
				'token'  => 'tok',
				'secret' => 'sec',
			),
			Sillage_Core::claim_body( 'tok', 'sec' ),
			'claim body'
		);
		eq( 'https://sillage.example/api/platforms/woocommerce/connections/claim', Sillage_Core::claim_url( 'https://sillage.example/' ), 'claim URL' );
	}
);

/**
 * A good claim answer, as JSON, with fields replaced.
 *
 * @param array $changes Fields to set (null removes one).
 * @return string
 */
function claim_answer( array $changes = array() ) {
	$answer = array_merge(
		array(
			'store_id'        => '0b7c5f4e-2222-4a6b-9c0d-00000000abcd',
			'publishable_key' => 'pk_live_0123456789ABCDEFGHIJKLmnopqr',
			'webhook_secret'  => 'whsec_4mZ9s-Q2_xv8Lk3Pq0rT7yUw',
			'webhook_url'     => 'https://sillage.example/api/platforms/woocommerce/webhooks/0b7c5f4e-2222-4a6b-9c0d-00000000abcd',
			'console_url'     => 'https://sillage.example/console/m/attar-al-sharq/install',
		),
		$changes
	);
	return json_encode( array_filter( $answer, 'is_scalar' ) + array_filter( $answer, 'is_array' ) );
}

test(
	'claim answer: a good 200 answer gives the five fields',
	function () {
		$answer = Sillage_Core::parse_claim_answer( 200, claim_answer(), 'https://sillage.example' );
		eq( true, $answer['ok'], 'ok' );
		eq( '0b7c5f4e-2222-4a6b-9c0d-00000000abcd', $answer['store_id'], 'store_id' );
		eq( 'pk_live_0123456789ABCDEFGHIJKLmnopqr', $answer['publishable_key'], 'publishable_key' );
		eq( 'whsec_4mZ9s-Q2_xv8Lk3Pq0rT7yUw', $answer['webhook_secret'], 'webhook_secret' );
		eq( 'https://sillage.example/api/platforms/woocommerce/webhooks/0b7c5f4e-2222-4a6b-9c0d-00000000abcd', $answer['webhook_url'], 'webhook_url' );
		eq( 'https://sillage.example/console/m/attar-al-sharq/install', $answer['console_url'], 'console_url' );
		eq( true, Sillage_Core::parse_claim_answer( '200', claim_answer( array( 'publishable_key' => 'pk_test_abcdefgh12345678' ) ), 'https://sillage.example' )['ok'], 'a test key, status as text' );
		$local = Sillage_Core::parse_claim_answer(
			200,
			claim_answer(
				array(
					'webhook_url' => 'http://localhost:3000/api/platforms/woocommerce/webhooks/0b7c5f4e-2222-4a6b-9c0d-00000000abcd',
					'console_url' => 'http://localhost:3000/console/m/x/install',
				)
			),
			'http://localhost:3000'
		);
		eq( true, $local['ok'], 'http addresses from an http service' );
		foreach (
			array(
				'webhook_url' => 'https://collector.evil.example/api/platforms/woocommerce/webhooks/0b7c5f4e-2222-4a6b-9c0d-00000000abcd',
				'console_url' => 'https://evil.example/console/m/x/install',
			) as $field => $elsewhere
		) {
			$answer = Sillage_Core::parse_claim_answer( 200, claim_answer( array( $field => $elsewhere ) ), 'https://sillage.example' );
			eq( false, $answer['ok'], $field . ' on another host than the service is refused' );
		}
		$answer = Sillage_Core::parse_claim_answer(
			200,
			claim_answer( array( 'console_url' => 'https://sillage.example:8443/console/m/x/install' ) ),
			'https://sillage.example'
		);
		eq( false, $answer['ok'], 'the console on another port than the service is refused' );
	}
);

test(
	'claim answer: a missing or invalid field is refused, naming it',
	function () {
		$cases = array(
			array( 'body', 'not json' ),
			array( 'body', '"a string"' ),
			array( 'body', str_repeat( ' ', 70000 ) . '{}' ),
			array( 'store_id', claim_answer( array( 'store_id' => null ) ) ),
			array( 'store_id', claim_answer( array( 'store_id' => '' ) ) ),
			array( 'store_id', claim_answer( array( 'store_id' => 42 ) ) ),
			array( 'store_id', claim_answer( array( 'store_id' => '../../admin' ) ) ),
			array( 'store_id', claim_answer( array( 'store_id' => '..' ) ) ),
			array( 'store_id', claim_answer( array( 'store_id' => 'a"b' ) ) ),
			array( 'publishable_key', claim_answer( array( 'publishable_key' => null ) ) ),
			array( 'publishable_key', claim_answer( array( 'publishable_key' => 'sk_live_0123456789' ) ) ),
			array( 'publishable_key', claim_answer( array( 'publishable_key' => 'pk_live_abc"><script>' ) ) ),
			array( 'publishable_key', claim_answer( array( 'publishable_key' => array( 'pk_live_0123456789' ) ) ) ),
			array( 'webhook_secret', claim_answer( array( 'webhook_secret' => null ) ) ),
			array( 'webhook_secret', claim_answer( array( 'webhook_secret' => 'short' ) ) ),
			array( 'webhook_secret', claim_answer( array( 'webhook_secret' => 'has&amp;an-entity-in-it' ) ) ),
			array( 'webhook_secret', claim_answer( array( 'webhook_secret' => 'has a space in it, sixteen+' ) ) ),
			array( 'webhook_url', claim_answer( array( 'webhook_url' => null ) ) ),
			array( 'webhook_url', claim_answer( array( 'webhook_url' => 'not a url' ) ) ),
			array( 'webhook_url', claim_answer( array( 'webhook_url' => 'http://sillage.example/api/platforms/woocommerce/webhooks/0b7c5f4e-2222-4a6b-9c0d-00000000abcd' ) ) ),
			array( 'webhook_url', claim_answer( array( 'webhook_url' => 'https://sillage.example/api/platforms/woocommerce/webhooks/another-store' ) ) ),
			array( 'webhook_url', claim_answer( array( 'webhook_url' => 'https://sillage.example/api/platforms/woocommerce/webhooks/0b7c5f4e-2222-4a6b-9c0d-00000000abcd?x=1' ) ) ),
			array( 'webhook_url', claim_answer( array( 'webhook_url' => 'javascript:alert(1)//api/platforms/woocommerce/webhooks/0b7c5f4e-2222-4a6b-9c0d-00000000abcd' ) ) ),
			array( 'webhook_url', claim_answer( array( 'webhook_url' => 'https://u:p@sillage.example/api/platforms/woocommerce/webhooks/0b7c5f4e-2222-4a6b-9c0d-00000000abcd' ) ) ),
			array( 'console_url', claim_answer( array( 'console_url' => null ) ) ),
			array( 'console_url', claim_answer( array( 'console_url' => 'javascript:alert(document.cookie)' ) ) ),
			array( 'console_url', claim_answer( array( 'console_url' => 'http://sillage.example/console' ) ) ),
			array( 'console_url', claim_answer( array( 'console_url' => 'https://sillage.example/console" onclick="x' ) ) ),
		);
		foreach ( $cases as $case ) {
			list( $field, $body ) = $case;
			$answer = Sillage_Core::parse_claim_answer( 200, $body, 'https://sillage.example' );
			eq( false, $answer['ok'], 'accepted ' . substr( $body, 0, 200 ) );
			eq( 'invalid', $answer['reason'], 'reason for ' . substr( $body, 0, 200 ) );
			eq( $field, $answer['field'], 'field for ' . substr( $body, 0, 200 ) );
		}
	}
);

test(
	'claim answer: another status is a refusal carrying the service\'s error and code, cleaned',
	function () {
		$answer = Sillage_Core::parse_claim_answer( 409, json_encode( array( 'error' => "انتهت صلاحية\nالربط <b>", 'code' => 'connect_expired' ) ), 'https://sillage.example' );
		eq(
			array(
				'ok'     => false,
				'reason' => 'refused',
				'status' => 409,
				'error'  => 'انتهت صلاحية الربط <b>',
				'code'   => 'connect_expired',
			),
			$answer,
			'refusal'
		);
		$plain = Sillage_Core::parse_claim_answer( 502, '<html>Bad gateway</html>', 'https://sillage.example' );
		eq( '', $plain['error'], 'error of a non-JSON answer' );
		eq( 502, $plain['status'], 'status' );
		$long = Sillage_Core::parse_claim_answer( 400, json_encode( array( 'error' => str_repeat( 'خطأ ', 200 ) ) ), 'https://sillage.example' );
		eq( 300, preg_match_all( '/./us', $long['error'] ), 'a long error is cut at 300 characters' );
		eq( '', Sillage_Core::parse_claim_answer( 400, "{\"error\":\"\xff\xfe\"}", 'https://sillage.example' )['error'], 'invalid UTF-8' );
		eq( '', Sillage_Core::parse_claim_answer( 400, '{"error":{"nested":true}}', 'https://sillage.example' )['error'], 'an error that is not text' );
		eq( false, Sillage_Core::parse_claim_answer( 201, claim_answer(), 'https://sillage.example' )['ok'], 'only 200 is success' );
	}
);

test(
	'signature: base64 HMAC-SHA256, as WooCommerce signs its webhooks',
	function () {
		// RFC 4231 test case 2, in base64
		eq( 'W9zBRr9gdU5qBCQmCJV1x1oAPwidJzmDnexYuWTsOEM=', Sillage_Core::signature( 'what do ya want for nothing?', 'Jefe' ), 'RFC 4231 case 2' );
		$body = '{"store_id":"s1","reason":"disconnected"}';
		eq( base64_encode( hash_hmac( 'sha256', $body, 'whsec_test', true ) ), Sillage_Core::signature( $body, 'whsec_test' ), 'signature' );
		eq( 44, strlen( Sillage_Core::signature( '', 'k' ) ), 'length' );
	}
);

test(
	'disconnect: the body and its signed headers',
	function () {
		$body = Sillage_Core::disconnect_body( '0b7c5f4e-2222', 'deactivated' );
		eq( '{"store_id":"0b7c5f4e-2222","reason":"deactivated"}', $body, 'body' );
		eq( '{"store_id":"s","reason":"disconnected"}', Sillage_Core::disconnect_body( 's', 'disconnected' ), 'disconnected' );
		eq( '{"store_id":"s","reason":"disconnected"}', Sillage_Core::disconnect_body( 's', 'other' ), 'an unknown reason' );
		eq(
			array(
				'Content-Type'           => 'application/json',
				'X-WC-Webhook-Topic'     => 'sillage.disconnected',
				'X-WC-Webhook-Signature' => base64_encode( hash_hmac( 'sha256', $body, 'whsec_x', true ) ),
				'X-WC-Webhook-Source'    => 'https://attar.example/',
			),
			Sillage_Core::disconnect_headers( $body, 'whsec_x', 'https://attar.example/' ),
			'headers'
		);
	}
);

test(
	'webhooks: the five topics and their names',
	function () {
		eq( array( 'product.created', 'product.updated', 'product.deleted', 'order.created', 'order.updated' ), Sillage_Core::WEBHOOK_TOPICS, 'topics' );
		eq( 'Sillage: order.created', Sillage_Core::webhook_name( 'order.created' ), 'name' );
	}
);

test(
	'locale: Arabic locales give ar, the rest en',
	function () {
		foreach ( array( 'ar', 'ar_SA', 'ar_AE', 'AR-kw', 'ary', 'arq' ) as $locale ) {
			eq( 'ar', Sillage_Core::locale_for( $locale ), $locale );
		}
		foreach ( array( 'en_US', 'en', 'fr_FR', 'arg', 'fa_IR', '', null, 'xar' ) as $locale ) {
			eq( 'en', Sillage_Core::locale_for( $locale ), var_export( $locale, true ) );
		}
	}
);

test(
	'purchase: a realistic order, the variation reported as its parent product, prices per unit',
	function () {
		eq(
			array(
				'order_id' => '4321',
				'total'    => 1035.0,
				'currency' => 'SAR',
				'items'    => array(
					array(
						'merchant_product_id' => '310',
						'quantity'            => 1,
						'price'               => 250.0,
					),
					array(
						'merchant_product_id' => '501',
						'quantity'            => 2,
						'price'               => 270.0,
					),
					array(
						'merchant_product_id' => '88',
						'quantity'            => 3,
						'price'               => 33.3333,
					),
				),
			),
			Sillage_Core::purchase_payload( sample_order() ),
			'payload'
		);
		$order             = sample_order();
		$order['currency'] = 'kwd';
		$order['total']    = 12.5;
		$order['id']       = '99';
		$payload           = Sillage_Core::purchase_payload( $order );
		eq( 'KWD', $payload['currency'], 'currency in capitals' );
		eq( 12.5, $payload['total'], 'a float total' );
		eq( '99', $payload['order_id'], 'an id as digits' );
		$order['items'] = array(
			array(
				'product_id' => 7,
				'quantity'   => 2.0,
				'total'      => 0,
			),
		);
		eq(
			array(
				array(
					'merchant_product_id' => '7',
					'quantity'            => 2,
					'price'               => 0.0,
				),
			),
			Sillage_Core::purchase_payload( $order )['items'],
			'a free line, a float quantity without fraction'
		);
	}
);

test(
	'purchase: 250 lines are cut to 200',
	function () {
		$order          = sample_order();
		$order['items'] = array();
		for ( $i = 1; $i <= 250; $i++ ) {
			$order['items'][] = array(
				'product_id' => 1000 + $i,
				'quantity'   => 1,
				'total'      => '10.00',
			);
		}
		$payload = Sillage_Core::purchase_payload( $order );
		eq( 200, count( $payload['items'] ), 'lines' );
		eq( '1001', $payload['items'][0]['merchant_product_id'], 'first' );
		eq( '1200', $payload['items'][199]['merchant_product_id'], 'last' );
	}
);

test(
	'purchase: hostile and broken values are left out, never passed on',
	function () {
		$order          = sample_order();
		$order['items'] = array(
			'not a line',
			array(
				'product_id' => '</script><script>alert(1)</script>',
				'quantity'   => 1,
				'total'      => '1',
			),
			array(
				'product_id' => 0,
				'quantity'   => 1,
				'total'      => '1',
			),
			array(
				'product_id' => -5,
				'quantity'   => 1,
				'total'      => '1',
			),
			array(
				'product_id' => '12abc',
				'quantity'   => 1,
				'total'      => '1',
			),
			array(
				'product_id' => 12,
				'quantity'   => 0,
				'total'      => '1',
			),
			array(
				'product_id' => 12,
				'quantity'   => -1,
				'total'      => '1',
			),
			array(
				'product_id' => 12,
				'quantity'   => 1.5,
				'total'      => '1',
			),
			array(
				'product_id' => 12,
				'quantity'   => 10001,
				'total'      => '1',
			),
			array(
				'product_id' => 12,
				'quantity'   => '2; DROP TABLE',
				'total'      => '1',
			),
			array(
				'product_id' => 12,
				'quantity'   => 1,
				'total'      => '-10',
			),
			array(
				'product_id' => 12,
				'quantity'   => 1,
				'total'      => 'NaN',
			),
			array(
				'product_id' => 12,
				'quantity'   => 1,
				'total'      => INF,
			),
			array(
				'product_id' => 12,
				'quantity'   => 1,
				'total'      => '1e3',
			),
			array(
				'product_id' => 12,
				'quantity'   => 1,
				'total'      => 2000000000,
			),
			array(
				'product_id' => 12,
				'quantity'   => 1,
				'total'      => array( 1 ),
			),
			array(
				'product_id' => 13,
				'quantity'   => '3',
				'total'      => ' 30.00 ',
			),
		);
		eq(
			array(
				array(
					'merchant_product_id' => '13',
					'quantity'            => 3,
					'price'               => 10.0,
				),
			),
			Sillage_Core::purchase_payload( $order )['items'],
			'only the good line is kept'
		);

		$bad_orders = array(
			array( 'id', '</script>' ),
			array( 'id', 0 ),
			array( 'id', null ),
			array( 'id', 1.5 ),
			array( 'total', '-1' ),
			array( 'total', 'free' ),
			array( 'total', 1e10 ),
			array( 'currency', 'SR' ),
			array( 'currency', 'S A R' ),
			array( 'currency', '</script>' ),
			array( 'currency', 'ريال' ),
			array( 'currency', null ),
			array( 'items', array() ),
			array( 'items', 'lines' ),
		);
		foreach ( $bad_orders as $case ) {
			$order             = sample_order();
			$order[ $case[0] ] = $case[1];
			eq( null, Sillage_Core::purchase_payload( $order ), $case[0] . ' = ' . var_export( $case[1], true ) );
		}
		eq( null, Sillage_Core::purchase_payload( array() ), 'an empty order' );
	}
);

test(
	'purchase: the lines never add up to more than 1,000,000,000',
	function () {
		$order          = sample_order();
		$order['items'] = array(
			array(
				'product_id' => 1,
				'quantity'   => 10000,
				'total'      => '900000000',
			),
			array(
				'product_id' => 2,
				'quantity'   => 10000,
				'total'      => '200000000',
			),
			array(
				'product_id' => 3,
				'quantity'   => 1,
				'total'      => '5',
			),
		);
		$items = Sillage_Core::purchase_payload( $order )['items'];
		eq( array( '1', '3' ), array_column( $items, 'merchant_product_id' ), 'lines kept' );
	}
);

test(
	'inline script: queues trackPurchase; nothing in it can close the script',
	function () {
		$script = Sillage_Core::purchase_script( Sillage_Core::purchase_payload( sample_order() ) );
		eq(
			'window.Sillage=window.Sillage||{};(window.Sillage.q=window.Sillage.q||[]).push([\'trackPurchase\', '
			. '{"order_id":"4321","total":1035,"currency":"SAR","items":[{"merchant_product_id":"310","quantity":1,"price":250},'
			. '{"merchant_product_id":"501","quantity":2,"price":270},{"merchant_product_id":"88","quantity":3,"price":33.3333}]}]);',
			$script,
			'script'
		);
		// whatever reaches the encoder, the script stays closed
		$hostile = array(
			'order_id' => '</script><script>alert(1)</script><!--',
			'currency' => "'\"&<>\u{2028}",
			'items'    => array( array( 'merchant_product_id' => '</SCRIPT >' ) ),
		);
		$script  = Sillage_Core::purchase_script( $hostile );
		ok( false === stripos( $script, '</script' ), 'a closing tag got through: ' . $script );
		ok( false === strpos( $script, '<!--' ), 'a comment opening got through' );
		ok( 1 !== preg_match( '/[<>&\']|\x{2028}/u', substr( $script, strpos( $script, '{"' ) ) ), 'an unescaped character in the JSON: ' . $script );
		contains( '\u003C\/script\u003E', $script, 'script' );
		// the JSON is still the same data
		$json = substr( $script, strpos( $script, "'trackPurchase', " ) + 17, -3 );
		eq( $hostile, json_decode( $json, true ), 'decoded' );
		eq( '', Sillage_Core::purchase_script( array( 'x' => "\xff" ) ), 'what cannot be encoded prints nothing' );
		$calls  = array();
		$script = Sillage_Core::purchase_script(
			array( 'a' => 1 ),
			function ( $value, $flags ) use ( &$calls ) {
				$calls[] = $flags;
				return json_encode( $value, $flags );
			}
		);
		eq( array( JSON_HEX_TAG | JSON_HEX_AMP | JSON_HEX_APOS | JSON_HEX_QUOT ), $calls, 'the encoder is given the flags' );
	}
);

// ---------------------------------------------------------------------------
// The plugin's sources
// ---------------------------------------------------------------------------

/**
 * A PHP source without its comments, and with every string emptied.
 *
 * @param string $source The source.
 * @return string
 * @throws Sillage_Test_Failure Without PHP's tokenizer.
 */
function code_of( $source ) {
	if ( ! function_exists( 'token_get_all' ) ) {
		throw new Sillage_Test_Failure( 'PHP\'s tokenizer extension is needed' );
	}
	$code = '';
	foreach ( token_get_all( $source ) as $token ) {
		if ( is_string( $token ) ) {
			$code .= $token;
		} elseif ( in_array( $token[0], array( T_COMMENT, T_DOC_COMMENT, T_INLINE_HTML ), true ) ) {
			$code .= ' ';
		} elseif ( in_array( $token[0], array( T_CONSTANT_ENCAPSED_STRING, T_ENCAPSED_AND_WHITESPACE ), true ) ) {
			$code .= "''";
		} else {
			$code .= $token[1];
		}
	}
	return $code;
}

test(
	'sources: each file stops when loaded outside WordPress',
	function () {
		foreach ( plugin_files() as $file ) {
			$source = (string) file_get_contents( SILLAGE_DIR . '/' . $file );
			if ( 'index.php' === basename( $file ) ) {
				ok( 1 === preg_match( '/^<\?php\s*\/\/ Silence is golden\.\s*$/', $source ), $file . ' is not an empty index' );
				continue;
			}
			$guard = 'uninstall.php' === $file ? "defined( 'WP_UNINSTALL_PLUGIN' ) || exit;" : "defined( 'ABSPATH' ) || exit;";
			contains( $guard, $source, $file );
		}
	}
);

test(
	'sources: written for PHP 7.4 (nothing of PHP 8)',
	function () {
		$php8 = array(
			'/\bstr_(?:contains|starts_with|ends_with)\s*\(/' => 'str_contains/str_starts_with/str_ends_with',
			'/\bmatch\s*\(/'                                 => 'match',
			'/\?->/'                                         => 'nullsafe operator',
			'/#\[/'                                          => 'attribute',
			'/\)\s*:\s*(?:mixed|static|never)\b/'            => 'PHP 8 return type',
			'/[(,]\s*[A-Za-z_]\w*:\s/'                         => 'named argument',
			'/\benum\s+\w+/'                                 => 'enum',
			'/\breadonly\b/'                                 => 'readonly',
			'/\barray_is_list\s*\(/'                         => 'array_is_list',
			'/[(,]\s*[A-Za-z_\\\\]+\s*\|\s*[A-Za-z_\\\\]+\s+&?\$/'   => 'union type',
			'/\)\s*:\s*\??[A-Za-z_\\\\]+\s*\|/'                => 'union return type',
		);
		foreach ( plugin_files() as $file ) {
			$source = (string) file_get_contents( SILLAGE_DIR . '/' . $file );
			$code   = code_of( $source );
			foreach ( $php8 as $pattern => $what ) {
				ok( 1 !== preg_match( $pattern, $code ), $file . ' uses ' . $what );
			}
		}
	}
);

test(
	'sources: the core calls no WordPress function',
	function () {
		$code = code_of( (string) file_get_contents( SILLAGE_DIR . '/includes/class-sillage-core.php' ) );
		ok( 1 !== preg_match( '/\b(?:wp_\w+|esc_\w+|get_option|update_option|add_action|add_filter|apply_filters|do_action|home_url|admin_url|__|_e|_n|sanitize_\w+|absint|is_wp_error)\s*\(/', $code, $m ), 'calls ' . ( isset( $m[0] ) ? $m[0] : '' ) );
	}
);

test(
	'sources: every option the plugin uses is in its list, and uninstall.php deletes that list',
	function () {
		$admin      = (string) file_get_contents( SILLAGE_DIR . '/includes/class-sillage-admin.php' );
		$storefront = (string) file_get_contents( SILLAGE_DIR . '/includes/class-sillage-storefront.php' );
		$uninstall  = (string) file_get_contents( SILLAGE_DIR . '/uninstall.php' );
		ok( 1 === preg_match( '/const OPTIONS = array\(([^)]*)\)/', $admin, $m ), 'no OPTIONS list in the admin class' );
		preg_match_all( "/'(sillage_[a-z_]+)'/", $m[1], $listed );
		preg_match_all( "/\\b(?:get|update|delete)_option\\(\\s*'(sillage_[a-z_]+)'/", $admin . $storefront, $used );
		eq( array(), array_values( array_diff( array_unique( $used[1] ), $listed[1] ) ), 'options used but not listed' );
		ok( 1 === preg_match( '/\$options = array\(([^)]*)\)/', $uninstall, $u ), 'no option list in uninstall.php' );
		preg_match_all( "/'(sillage_[a-z_]+)'/", $u[1], $deleted );
		eq( $listed[1], $deleted[1], 'options uninstall.php deletes' );
		ok( count( $listed[1] ) >= 9, 'too few options listed' );
	}
);

/**
 * The translatable strings of the plugin's sources: msgid => true.
 *
 * @return array
 */
function translatable_strings() {
	$strings = array();
	$calls   = 0;
	$string  = "'((?:[^'\\\\]|\\\\.)*)'";
	foreach ( plugin_files() as $file ) {
		$source = (string) file_get_contents( SILLAGE_DIR . '/' . $file );
		$calls += preg_match_all( '/(?<![\w>:])(?:__|_e|_x|_n|esc_html__|esc_html_e|esc_attr__|esc_attr_e)\s*\(/', $source );
		preg_match_all( '/(?<![\w>:])(?:__|_e|esc_html__|esc_html_e|esc_attr__|esc_attr_e)\s*\(\s*' . $string . '\s*,\s*\'sillage\'\s*\)/', $source, $found );
		foreach ( $found[1] as $literal ) {
			$strings[ stripcslashes( str_replace( array( "\\'", '\\\\' ), array( "'", '\\' ), $literal ) ) ] = true;
		}
	}
	// WordPress translates the plugin's name and description on the Plugins screen
	$main = (string) file_get_contents( SILLAGE_DIR . '/sillage.php' );
	foreach ( array( 'Plugin Name', 'Description' ) as $header ) {
		if ( preg_match( '/^ \* ' . $header . ':\s*(.+)$/m', $main, $m ) ) {
			$strings[ trim( $m[1] ) ] = true;
		}
	}
	if ( count( $strings ) === 0 ) {
		throw new Sillage_Test_Failure( 'no translatable string found' );
	}
	return array( $strings, $calls );
}

/**
 * The .po file's entries: msgid => msgstr.
 *
 * @param string $path The file.
 * @return array
 */
function po_entries( $path ) {
	$entries = array();
	$blocks  = preg_split( '/\n\s*\n/', str_replace( "\r\n", "\n", (string) file_get_contents( $path ) ) );
	foreach ( $blocks as $block ) {
		if ( ! preg_match( '/^msgid\s+((?:"(?:[^"\\\\]|\\\\.)*"\s*)+)^msgstr\s+((?:"(?:[^"\\\\]|\\\\.)*"\s*)+)/m', $block, $m ) ) {
			continue;
		}
		$read = function ( $quoted ) {
			preg_match_all( '/"((?:[^"\\\\]|\\\\.)*)"/', $quoted, $parts );
			return stripcslashes( implode( '', $parts[1] ) );
		};
		$entries[ $read( $m[1] ) ] = $read( $m[2] );
	}
	return $entries;
}

test(
	'translations: every string has the text domain sillage, and an Arabic translation in both files',
	function () {
		list( $strings, $calls ) = translatable_strings();
		eq( $calls, count_calls_with_domain(), 'translation calls with a single-quoted text and the domain sillage' );
		$po = po_entries( SILLAGE_DIR . '/languages/sillage-ar.po' );
		ok( isset( $po[''] ) && false !== strpos( $po[''], 'Language: ar' ), 'the .po header does not say Language: ar' );
		unset( $po[''] );
		$php = include SILLAGE_DIR . '/languages/sillage-ar.l10n.php';
		eq( 'sillage', $php['domain'], 'domain of the .l10n.php file' );
		eq( 'ar', $php['language'], 'language of the .l10n.php file' );
		foreach ( array_keys( $strings ) as $msgid ) {
			ok( isset( $po[ $msgid ] ) && '' !== $po[ $msgid ], 'not translated in sillage-ar.po: ' . $msgid );
			ok( isset( $php['messages'][ $msgid ] ), 'not in sillage-ar.l10n.php: ' . $msgid );
			// the brand's name stays as it is
			ok( 'Sillage' === $msgid || 1 === preg_match( '/\p{Arabic}/u', $po[ $msgid ] ), 'not Arabic: ' . $po[ $msgid ] );
			preg_match_all( '/%(?:\d+\$)?[sd]/', $msgid, $a );
			preg_match_all( '/%(?:\d+\$)?[sd]/', $po[ $msgid ], $b );
			$pa = $a[0];
			$pb = $b[0];
			sort( $pa );
			sort( $pb );
			eq( $pa, $pb, 'placeholders of ' . $msgid );
		}
		eq( $po, $php['messages'], 'sillage-ar.l10n.php says what sillage-ar.po says' );
		eq( array(), array_values( array_diff( array_keys( $po ), array_keys( $strings ) ) ), 'translations no string uses' );
	}
);

/**
 * How many translation calls carry a single-quoted text and the domain sillage.
 *
 * @return int
 */
function count_calls_with_domain() {
	$count  = 0;
	$string = "'(?:[^'\\\\]|\\\\.)*'";
	foreach ( plugin_files() as $file ) {
		$count += preg_match_all( '/(?<![\w>:])(?:__|_e|esc_html__|esc_html_e|esc_attr__|esc_attr_e)\s*\(\s*' . $string . '\s*,\s*\'sillage\'\s*\)/', (string) file_get_contents( SILLAGE_DIR . '/' . $file ) );
	}
	return $count;
}

$sillage_failed = run_tests();

// ---------------------------------------------------------------------------
// The WordPress side, against stand-ins
// ---------------------------------------------------------------------------

require __DIR__ . '/wordpress-stubs.php';
require __DIR__ . '/wiring-tests.php';

$sillage_failed += run_tests();

echo $sillage_failed ? "\n{$sillage_failed} failed\n" : "\nall passed\n";
exit( $sillage_failed ? 1 : 0 );
