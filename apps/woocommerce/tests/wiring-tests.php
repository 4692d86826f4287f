<?php
/**
 * The plugin's WordPress side against the stand-ins of wordpress-stubs.php:
 * Connect, the claim, the webhooks, Disconnect and deactivation, the
 * settings page's escaping, the widget's tag and the thank-you script.
 * Loaded by run.php after the core's tests.
 *
 * @package Sillage
 */

defined( 'ABSPATH' ) || exit;

require SILLAGE_DIR . '/sillage.php';

const SERVICE    = 'https://sillage.example';
const STORE_ID   = '0b7c5f4e-2222-4a6b-9c0d-00000000abcd';
const KEY        = 'pk_live_0123456789ABCDEFGHIJKLmnopqr';
const WH_SECRET  = 'whsec_4mZ9s-Q2_xv8Lk3Pq0rT7yUw';
const WH_URL     = 'https://sillage.example/api/platforms/woocommerce/webhooks/0b7c5f4e-2222-4a6b-9c0d-00000000abcd';
const CONSOLE    = 'https://sillage.example/console/m/attar-al-sharq/install';
const PAGE_URL   = 'https://attar.example/wp-admin/admin.php?page=sillage';
const WIDGET_TAG = "<script src=\"https://sillage.example/widget/v1/sillage.js\" id=\"sillage-widget-js\" defer data-wp-strategy=\"defer\"></script>\n";

/**
 * What a callable prints.
 *
 * @param callable $fn The callable.
 * @return string
 */
function capture( $fn ) {
	ob_start();
	try {
		$fn();
	} finally {
		$out = (string) ob_get_clean();
	}
	return $out;
}

/**
 * Where a callable redirects to.
 *
 * @param callable $fn The callable.
 * @return string
 * @throws Sillage_Test_Failure When it does not redirect.
 */
function redirect_of( $fn ) {
	try {
		$fn();
	} catch ( Sillage_Test_Redirect $r ) {
		return $r->location;
	}
	throw new Sillage_Test_Failure( 'no redirect' );
}

/**
 * Expects a callable to stop with wp_die().
 *
 * @param callable $fn   The callable.
 * @param string   $what What is checked.
 * @throws Sillage_Test_Failure When it does not.
 */
function dies( $fn, $what ) {
	try {
		$fn();
	} catch ( Sillage_Test_Die $e ) {
		return;
	} catch ( Sillage_Test_Redirect $r ) {
		throw new Sillage_Test_Failure( $what . ': redirected to ' . $r->location . ' instead of stopping' );
	}
	throw new Sillage_Test_Failure( $what . ': did not stop' );
}

/**
 * A form of the settings page posted, with its nonce.
 *
 * @param string $action The admin-post action.
 * @param array  $fields More fields.
 */
function post_form( $action, array $fields = array() ) {
	$_POST    = array_merge(
		array(
			'action'   => $action,
			'_wpnonce' => 'nonce-' . $action,
		),
		$fields
	);
	$_REQUEST = $_POST;
}

/**
 * A site with the service's address saved and a Connect just pressed.
 *
 * @param int $age How long ago Connect was pressed, in seconds.
 * @return string The connect secret.
 */
function connecting_site( $age = 30 ) {
	wp_reset();
	$secret = str_repeat( '5e', 32 );
	update_option( 'sillage_service_url', SERVICE );
	update_option( 'sillage_connect_secret', $secret );
	update_option( 'sillage_connect_started', time() - $age );
	return $secret;
}

/**
 * A connected site with its webhooks.
 */
function connected_site() {
	wp_reset();
	update_option( 'sillage_service_url', SERVICE );
	update_option( 'sillage_store_id', STORE_ID );
	update_option( 'sillage_publishable_key', KEY );
	update_option( 'sillage_webhook_secret', WH_SECRET );
	update_option( 'sillage_webhook_url', WH_URL );
	update_option( 'sillage_console_url', CONSOLE );
	eq( true, Sillage_Admin::register_webhooks( WH_URL, WH_SECRET ), 'webhooks registered' );
}

/**
 * The service's answer to a claim (run.php's claim_answer()).
 *
 * @param array $changes Fields to set.
 * @return string
 */
function good_answer( array $changes = array() ) {
	return claim_answer( $changes );
}

/**
 * Comes back from the service to the settings page.
 *
 * @param array $query The query parameters.
 * @return string Where the page redirected to.
 */
function come_back( array $query ) {
	$_GET = array_merge( array( 'page' => 'sillage' ), $query );
	return redirect_of( array( 'Sillage_Admin', 'on_load' ) );
}

/**
 * The message kept for the settings page.
 *
 * @return array|false
 */
function kept_notice() {
	return get_transient( 'sillage_notice_7' );
}

/**
 * Forgets the orders the storefront printed.
 */
function reset_printed() {
	$printed = new ReflectionProperty( 'Sillage_Storefront', 'printed' );
	$printed->setAccessible( true );
	$printed->setValue( null, array() );
}

test(
	'plugin: without WooCommerce only a notice; with it the admin, storefront and deactivation hooks',
	function () {
		wp_reset();
		sillage_boot();
		eq( array( 'admin_notices' ), array_keys( WP_State::$actions ), 'hooks without WooCommerce' );
		$notice = capture( 'sillage_woocommerce_missing_notice' );
		contains( '<div class="notice notice-error"><p>Sillage Scent Quiz needs WooCommerce.', $notice, 'notice' );

		class_alias( 'WP_User', 'WooCommerce' );
		wp_reset();
		sillage_boot();
		foreach ( array( 'admin_menu', 'admin_post_sillage_save', 'admin_post_sillage_connect', 'admin_post_sillage_disconnect', 'wp_enqueue_scripts', 'woocommerce_thankyou', 'rest_api_init' ) as $hook ) {
			ok( isset( WP_State::$actions[ $hook ] ), 'not hooked: ' . $hook );
		}
		eq( array( 'Sillage_Storefront', 'thankyou' ), WP_State::$actions['woocommerce_thankyou'][0][0], 'thank-you callback' );
		ok( isset( WP_State::$filters['script_loader_tag'] ) && 3 === WP_State::$filters['script_loader_tag'][0][2], 'script_loader_tag with its 3 arguments' );
		eq( array( 'Sillage_Admin', 'deactivate' ), WP_State::$deactivation['sillage.php'], 'deactivation hook' );
	}
);

test(
	'connect: a new secret is saved and the browser goes to the service with its proof, the store and the email',
	function () {
		wp_reset();
		update_option( 'sillage_service_url', SERVICE );
		post_form( 'sillage_connect' );
		$location = redirect_of( array( 'Sillage_Admin', 'handle_connect' ) );
		$secret   = get_option( 'sillage_connect_secret' );
		ok( Sillage_Core::is_secret( $secret ), 'no connect secret saved' );
		ok( abs( time() - get_option( 'sillage_connect_started' ) ) < 5, 'start time' );
		eq(
			SERVICE . '/console/woocommerce/connect?store=https%3A%2F%2Fattar.example&proof=' . hash( 'sha256', $secret ) . '&email=owner%2Bshop%40attar.example&admin=' . urlencode( 'https://attar.example/wp-admin/admin.php' ),
			$location,
			'redirect (the service\'s host allowed)'
		);
	}
);

test(
	'confirmation: a public GET route that confirms only the pending Connect, signed with an installation key kept across Disconnect',
	function () {
		wp_reset();
		Sillage_Admin::register_rest_routes();
		$route = WP_State::$rest_routes['sillage/v1/connection'];
		eq( 'GET', $route['methods'], 'method' );
		eq( '__return_true', $route['permission_callback'], 'permission' );
		eq( array( 'Sillage_Admin', 'confirm_connection' ), $route['callback'], 'callback' );
		$challenge = str_repeat( 'c', 43 );
		$ask       = function ( $proof ) use ( $challenge ) {
			return Sillage_Admin::confirm_connection(
				new WP_REST_Request(
					array(
						'proof'     => $proof,
						'challenge' => $challenge,
					)
				)
			);
		};

		update_option( 'sillage_service_url', SERVICE );
		post_form( 'sillage_connect' );
		redirect_of( array( 'Sillage_Admin', 'handle_connect' ) );
		$key = get_option( 'sillage_installation_key' );
		ok( Sillage_Core::is_installation_key( $key ), 'no installation key made at Connect' );
		$proof  = hash( 'sha256', get_option( 'sillage_connect_secret' ) );
		$answer = $ask( $proof );
		ok( $answer instanceof WP_REST_Response, 'the pending connection is not confirmed' );
		eq( 200, $answer->status, 'status' );
		eq( 'no-store', $answer->headers['Cache-Control'], 'cache' );
		eq( Sillage_Core::installation_public_key( $key ), $answer->data['key'], 'key' );
		$raw = function ( $text ) {
			return base64_decode( strtr( $text, '-_', '+/' ) );
		};
		ok(
			sodium_crypto_sign_verify_detached( $raw( $answer->data['signature'] ), Sillage_Core::connection_message( $proof, $challenge ), $raw( $answer->data['key'] ) ),
			'signature'
		);
		$other = $ask( hash( 'sha256', 'someone else' ) );
		ok( $other instanceof WP_Error, 'another proof confirmed' );
		eq( array( 'status' => 404 ), $other->get_error_data(), 'status of a refusal' );

		// a second Connect keeps the key; an hour later the connection is not confirmed
		post_form( 'sillage_connect' );
		redirect_of( array( 'Sillage_Admin', 'handle_connect' ) );
		eq( $key, get_option( 'sillage_installation_key' ), 'the key of a second Connect' );
		update_option( 'sillage_connect_started', time() - 3601 );
		ok( $ask( hash( 'sha256', get_option( 'sillage_connect_secret' ) ) ) instanceof WP_Error, 'confirmed after an hour' );

		// Disconnect keeps the key (connecting again is the same merchant), and confirms nothing
		foreach ( array( 'sillage_store_id' => STORE_ID, 'sillage_publishable_key' => KEY, 'sillage_webhook_secret' => WH_SECRET, 'sillage_webhook_url' => WH_URL ) as $name => $value ) {
			update_option( $name, $value );
		}
		wp_queue_response( 200, '{}' );
		post_form( 'sillage_disconnect' );
		redirect_of( array( 'Sillage_Admin', 'handle_disconnect' ) );
		eq(
			array(
				'sillage_service_url'      => SERVICE,
				'sillage_installation_key' => $key,
			),
			WP_State::$options,
			'options left'
		);
		ok( $ask( $proof ) instanceof WP_Error, 'confirmed after Disconnect' );
	}
);

test(
	'connect: refused without the capability or the nonce, and without a service address',
	function () {
		wp_reset();
		update_option( 'sillage_service_url', SERVICE );
		post_form( 'sillage_connect' );
		WP_State::$can = false;
		dies( array( 'Sillage_Admin', 'handle_connect' ), 'without manage_woocommerce' );
		WP_State::$can = true;
		post_form( 'sillage_connect', array( '_wpnonce' => 'forged' ) );
		dies( array( 'Sillage_Admin', 'handle_connect' ), 'without the nonce' );
		post_form( 'sillage_disconnect' );
		dies( array( 'Sillage_Admin', 'handle_connect' ), 'with another form\'s nonce' );
		eq( false, get_option( 'sillage_connect_secret' ), 'no secret saved' );

		delete_option( 'sillage_service_url' );
		post_form( 'sillage_connect' );
		eq( PAGE_URL, redirect_of( array( 'Sillage_Admin', 'handle_connect' ) ), 'back to the page' );
		eq( 'error', kept_notice()['type'], 'notice' );
		eq( false, get_option( 'sillage_connect_secret' ), 'no secret saved' );
	}
);

test(
	'claim: posts the token and the secret as JSON, saves the answer, makes the five webhooks, forgets the secret',
	function () {
		$secret = connecting_site();
		wp_queue_response( 200, good_answer() );
		eq( PAGE_URL, come_back( array( 'sillage_connect' => 'ct_3f9a-Zz', 'success' => '1', 'user_id' => '1' ) ), 'back to the page without the token' );

		eq( 1, count( WP_State::$requests ), 'requests' );
		$request = WP_State::$requests[0];
		eq( SERVICE . '/api/platforms/woocommerce/connections/claim', $request['url'], 'claim URL' );
		eq( 'application/json', $request['args']['headers']['Content-Type'], 'Content-Type' );
		eq(
			array(
				'token'  => 'ct_3f9a-Zz',
				'secret' => $secret,
			),
			json_decode( $request['args']['body'], true ),
			'body'
		);

		eq( STORE_ID, get_option( 'sillage_store_id' ), 'store id' );
		eq( KEY, get_option( 'sillage_publishable_key' ), 'key' );
		eq( WH_SECRET, get_option( 'sillage_webhook_secret' ), 'webhook secret' );
		eq( WH_URL, get_option( 'sillage_webhook_url' ), 'webhook url' );
		eq( CONSOLE, get_option( 'sillage_console_url' ), 'console url' );
		eq( false, get_option( 'sillage_connect_secret' ), 'the connect secret is used once' );
		eq( 'success', kept_notice()['type'], 'notice' );

		eq( array_keys( WP_State::$webhooks ), get_option( 'sillage_webhook_ids' ), 'webhook ids kept' );
		$made = array();
		foreach ( WP_State::$webhooks as $webhook ) {
			$p      = $webhook->props;
			$made[] = $p['topic'];
			eq( 'Sillage: ' . $p['topic'], $p['name'], 'name' );
			eq( WH_URL, $p['delivery_url'], 'delivery url' );
			eq( WH_SECRET, $p['secret'], 'secret' );
			eq( 'active', $p['status'], 'status' );
			eq( 7, $p['user_id'], 'user' );
			eq( 'wp_api_v3', $p['api_version'], 'API version' );
		}
		eq( Sillage_Core::WEBHOOK_TOPICS, $made, 'topics' );
		ok( Sillage_Admin::is_connected(), 'not connected' );
	}
);

test(
	'claim: connecting again deletes the old webhooks first',
	function () {
		connected_site();
		$old = get_option( 'sillage_webhook_ids' );
		update_option( 'sillage_connect_secret', str_repeat( 'ab', 32 ) );
		update_option( 'sillage_connect_started', time() );
		wp_queue_response( 200, good_answer( array( 'webhook_secret' => 'whsec_another-secret-0123' ) ) );
		come_back( array( 'sillage_connect' => 'ct_second', 'success' => '1' ) );
		eq( 5, count( WP_State::$webhooks ), 'webhooks' );
		eq( array(), array_values( array_intersect( $old, array_keys( WP_State::$webhooks ) ) ), 'old webhooks left' );
		foreach ( WP_State::$webhooks as $webhook ) {
			eq( 'whsec_another-secret-0123', $webhook->props['secret'], 'new secret' );
		}
	}
);

test(
	'claim: the service\'s refusal is shown, escaped; nothing is saved',
	function () {
		connecting_site();
		wp_queue_response( 409, json_encode( array( 'error' => '<b>انتهت صلاحية الربط</b>', 'code' => 'connect_expired' ) ) );
		come_back( array( 'sillage_connect' => 'ct_3f9a', 'success' => '1' ) );
		eq(
			array(
				'type'    => 'error',
				'message' => '<b>انتهت صلاحية الربط</b> (code: connect_expired)',
			),
			kept_notice(),
			'notice'
		);
		eq( false, get_option( 'sillage_store_id' ), 'store id' );
		eq( array(), WP_State::$webhooks, 'webhooks' );
		$page = capture( array( 'Sillage_Admin', 'render' ) );
		contains( '<div class="notice notice-error is-dismissible"><p>&lt;b&gt;انتهت صلاحية الربط&lt;/b&gt; (code: connect_expired)</p></div>', $page, 'page' );
		ok( false === strpos( $page, '<b>' ), 'unescaped HTML on the page' );
		eq( false, kept_notice(), 'the notice is shown once' );

		connecting_site();
		wp_queue_response( 503, 'upstream down' );
		come_back( array( 'sillage_connect' => 'ct_3f9a', 'success' => '1' ) );
		contains( 'HTTP 503', kept_notice()['message'], 'a refusal without JSON' );

		connecting_site();
		wp_queue_response( 200, good_answer( array( 'console_url' => 'javascript:alert(1)' ) ) );
		come_back( array( 'sillage_connect' => 'ct_3f9a', 'success' => '1' ) );
		contains( '(console_url)', kept_notice()['message'], 'an invalid answer' );
		eq( false, get_option( 'sillage_store_id' ), 'store id after an invalid answer' );
	}
);

test(
	'claim: declined, expired, a bad token, an unreachable service, or no capability: no claim is made',
	function () {
		connecting_site();
		come_back( array( 'sillage_connect' => 'ct_3f9a', 'success' => '0' ) );
		eq( 'warning', kept_notice()['type'], 'declined' );
		eq( false, get_option( 'sillage_connect_secret' ), 'secret after declining' );

		connecting_site( 7200 );
		come_back( array( 'sillage_connect' => 'ct_3f9a', 'success' => '1' ) );
		eq( 'error', kept_notice()['type'], 'expired' );

		connecting_site();
		delete_option( 'sillage_connect_secret' );
		come_back( array( 'sillage_connect' => 'ct_3f9a', 'success' => '1' ) );
		eq( 'error', kept_notice()['type'], 'no secret (already used)' );

		connecting_site();
		come_back( array( 'sillage_connect' => 'a"b <script>', 'success' => '1' ) );
		eq( 'error', kept_notice()['type'], 'bad token' );
		eq( array(), WP_State::$requests, 'requests' );

		connecting_site();
		come_back( array( 'sillage_connect' => 'ct_3f9a', 'success' => '1' ) );
		contains( 'could not be reached: no answer queued', kept_notice()['message'], 'unreachable' );

		connecting_site();
		WP_State::$can = false;
		$_GET          = array(
			'sillage_connect' => 'ct_3f9a',
			'success'         => '1',
		);
		dies( array( 'Sillage_Admin', 'on_load' ), 'without manage_woocommerce' );
		eq( array(), WP_State::$requests, 'requests' );

		wp_reset();
		$_GET = array( 'page' => 'sillage' );
		eq( null, Sillage_Admin::on_load(), 'a plain visit does nothing' );
	}
);

test(
	'disconnect: webhooks deleted, the service told with a signed message, the store forgotten',
	function () {
		connected_site();
		wp_queue_response( 200, '{}' );
		post_form( 'sillage_disconnect' );
		eq( PAGE_URL, redirect_of( array( 'Sillage_Admin', 'handle_disconnect' ) ), 'redirect' );
		eq( 1, count( WP_State::$requests ), 'requests' );
		$request = WP_State::$requests[0];
		$body    = '{"store_id":"' . STORE_ID . '","reason":"disconnected"}';
		eq( WH_URL, $request['url'], 'url' );
		eq( $body, $request['args']['body'], 'body' );
		eq(
			array(
				'Content-Type'           => 'application/json',
				'X-WC-Webhook-Topic'     => 'sillage.disconnected',
				'X-WC-Webhook-Signature' => base64_encode( hash_hmac( 'sha256', $body, WH_SECRET, true ) ),
				'X-WC-Webhook-Source'    => 'https://attar.example/',
			),
			$request['args']['headers'],
			'headers'
		);
		eq( array(), WP_State::$webhooks, 'webhooks' );
		eq( array( 'sillage_service_url' => SERVICE ), WP_State::$options, 'options left' );
		eq( 'success', kept_notice()['type'], 'notice' );
		ok( ! Sillage_Admin::is_connected(), 'still connected' );

		connected_site();
		wp_queue_response( 500, '' );
		post_form( 'sillage_disconnect' );
		redirect_of( array( 'Sillage_Admin', 'handle_disconnect' ) );
		eq( 'warning', kept_notice()['type'], 'the service could not be told' );
		ok( ! Sillage_Admin::is_connected(), 'disconnected all the same' );

		connected_site();
		post_form( 'sillage_connect' );
		dies( array( 'Sillage_Admin', 'handle_disconnect' ), 'with another form\'s nonce' );
		ok( Sillage_Admin::is_connected(), 'disconnected by a forged form' );
	}
);

test(
	'deactivation: a connected store leaves with reason deactivated',
	function () {
		connected_site();
		wp_queue_response( 200, '{}' );
		Sillage_Admin::deactivate( false );
		eq( '{"store_id":"' . STORE_ID . '","reason":"deactivated"}', WP_State::$requests[0]['args']['body'], 'body' );
		eq( array(), WP_State::$webhooks, 'webhooks' );
		eq( false, get_option( 'sillage_publishable_key' ), 'key' );

		wp_reset();
		Sillage_Admin::deactivate( false );
		eq( array(), WP_State::$requests, 'nothing to tell when not connected' );
	}
);

test(
	'settings: the address is saved checked, refused when invalid or while connected',
	function () {
		wp_reset();
		post_form( 'sillage_save', array( 'sillage_service_url' => ' https://Sillage.example/ ' ) );
		eq( PAGE_URL, redirect_of( array( 'Sillage_Admin', 'handle_save' ) ), 'redirect' );
		eq( SERVICE, get_option( 'sillage_service_url' ), 'saved' );

		post_form( 'sillage_save', array( 'sillage_service_url' => 'http://sillage.example' ) );
		redirect_of( array( 'Sillage_Admin', 'handle_save' ) );
		eq( 'error', kept_notice()['type'], 'plain http' );
		eq( SERVICE, get_option( 'sillage_service_url' ), 'kept' );

		connected_site();
		post_form( 'sillage_save', array( 'sillage_service_url' => 'https://other.example' ) );
		redirect_of( array( 'Sillage_Admin', 'handle_save' ) );
		eq( SERVICE, get_option( 'sillage_service_url' ), 'changed while connected' );

		wp_reset();
		WP_State::$can = false;
		post_form( 'sillage_save', array( 'sillage_service_url' => SERVICE ) );
		dies( array( 'Sillage_Admin', 'handle_save' ), 'without manage_woocommerce' );
	}
);

test(
	'settings page: the console link opens apart, values escaped; Connect disabled without an address',
	function () {
		connected_site();
		$page = capture( array( 'Sillage_Admin', 'render' ) );
		contains( '<a class="button button-primary" href="' . CONSOLE . '" target="_blank" rel="noopener noreferrer">Open your Sillage console</a>', $page, 'page' );
		contains( 'store ' . STORE_ID, $page, 'page' );
		contains( 'value="nonce-sillage_disconnect"', $page, 'page' );
		contains( 'disabled="disabled"', $page, 'the address cannot be edited while connected' );
		ok( false === strpos( $page, 'Some of the webhooks' ), 'webhooks reported missing' );

		unset( WP_State::$webhooks[ get_option( 'sillage_webhook_ids' )[0] ] );
		contains( 'Some of the webhooks', capture( array( 'Sillage_Admin', 'render' ) ), 'a missing webhook' );

		update_option( 'sillage_console_url', 'javascript:alert(1)' );
		ok( false === strpos( capture( array( 'Sillage_Admin', 'render' ) ), 'javascript:' ), 'a javascript: link' );

		wp_reset();
		$page = capture( array( 'Sillage_Admin', 'render' ) );
		contains( 'value="Connect" disabled="disabled"', $page, 'Connect without an address' );
		update_option( 'sillage_service_url', 'https://sillage.example/"><script>' );
		$page = capture( array( 'Sillage_Admin', 'render' ) );
		ok( false === strpos( $page, '<script>' ), 'a stored address is printed unescaped' );

		WP_State::$can = false;
		eq( '', capture( array( 'Sillage_Admin', 'render' ) ), 'nothing without manage_woocommerce' );
	}
);

test(
	'widget: enqueued deferred in the footer from the service once connected, not before',
	function () {
		wp_reset();
		update_option( 'sillage_service_url', SERVICE );
		Sillage_Storefront::enqueue();
		eq( array(), WP_State::$scripts, 'scripts when not connected' );

		connected_site();
		Sillage_Storefront::enqueue();
		eq(
			array(
				'sillage-widget' => array(
					SERVICE . '/widget/v1/sillage.js',
					array(),
					null,
					array(
						'strategy'  => 'defer',
						'in_footer' => true,
					),
				),
			),
			WP_State::$scripts,
			'scripts'
		);
	}
);

test(
	'widget: its tag carries the key, the language and the service, escaped; other tags are left alone',
	function () {
		connected_site();
		eq(
			'<script data-key="' . KEY . '" data-locale="ar" data-base-url="' . SERVICE . '" src="https://sillage.example/widget/v1/sillage.js" id="sillage-widget-js" defer data-wp-strategy="defer"></script>' . "\n",
			Sillage_Storefront::script_tag( WIDGET_TAG, 'sillage-widget', SERVICE . '/widget/v1/sillage.js' ),
			'tag'
		);
		WP_State::$locale = 'en_US';
		contains( 'data-locale="en"', Sillage_Storefront::script_tag( WIDGET_TAG, 'sillage-widget' ), 'English' );
		WP_State::$locale = 'ar_SA';
		contains( 'data-locale="ar"', Sillage_Storefront::script_tag( WIDGET_TAG, 'sillage-widget' ), 'Saudi Arabic' );

		$other = '<script src="https://attar.example/theme.js" id="theme-js"></script>';
		eq( $other, Sillage_Storefront::script_tag( $other, 'theme' ), 'another script' );

		$before = "<script id=\"sillage-widget-js-before\">var a = 1;</script>\n" . WIDGET_TAG;
		$tag    = Sillage_Storefront::script_tag( $before, 'sillage-widget' );
		contains( "<script id=\"sillage-widget-js-before\">var a = 1;</script>\n<script data-key=", $tag, 'with an inline script before it' );

		update_option( 'sillage_publishable_key', 'pk_live_x" onload="alert(1)' );
		$tag = Sillage_Storefront::script_tag( WIDGET_TAG, 'sillage-widget' );
		contains( 'data-key="pk_live_x&quot; onload=&quot;alert(1)"', $tag, 'escaped key' );

		update_option( 'sillage_publishable_key', KEY );
		WP_State::$order_received_page = true;
		contains( 'data-mount="none"', Sillage_Storefront::script_tag( WIDGET_TAG, 'sillage-widget' ), 'no launcher on the order-received page' );

		wp_reset();
		eq( WIDGET_TAG, Sillage_Storefront::script_tag( WIDGET_TAG, 'sillage-widget' ), 'not connected' );
	}
);

/**
 * An order of the shop: a simple product, a variation of product 501, shipping.
 *
 * @param string $status The order's status.
 * @return WC_Order
 */
function shop_order( $status = 'processing' ) {
	return new WC_Order(
		array(
			'id'       => 4321,
			'status'   => $status,
			'total'    => '805.00',
			'currency' => 'SAR',
			'items'    => array(
				new WC_Order_Item_Product(
					array(
						'product_id' => 310,
						'quantity'   => 1,
						'total'      => '250',
					)
				),
				new WC_Order_Item_Product(
					array(
						'product_id'   => 501,
						'variation_id' => 777,
						'quantity'     => 2,
						'total'        => '540',
					)
				),
				new WC_Order_Item_Shipping(),
			),
		)
	);
}

test(
	'thank-you: the purchase is queued once per order, the variation as its parent product',
	function () {
		connected_site();
		reset_printed();
		WP_State::$orders[4321] = shop_order();
		$out                    = capture(
			function () {
				Sillage_Storefront::thankyou( 4321 );
			}
		);
		ok( 1 === preg_match( "/^<script id=\"sillage-purchase-4321\">(.*)<\\/script>\n$/s", $out, $m ), 'one script: ' . $out );
		ok( 0 === strpos( $m[1], "window.Sillage=window.Sillage||{};(window.Sillage.q=window.Sillage.q||[]).push(['trackPurchase', " ), 'the queue: ' . $m[1] );
		$json = substr( $m[1], strlen( "window.Sillage=window.Sillage||{};(window.Sillage.q=window.Sillage.q||[]).push(['trackPurchase', " ), -3 );
		eq(
			array(
				'order_id' => '4321',
				'total'    => 805,
				'currency' => 'SAR',
				'items'    => array(
					array(
						'merchant_product_id' => '310',
						'quantity'            => 1,
						'price'               => 250,
					),
					array(
						'merchant_product_id' => '501',
						'quantity'            => 2,
						'price'               => 270,
					),
				),
			),
			json_decode( $json, true ),
			'purchase'
		);
		eq(
			'',
			capture(
				function () {
					Sillage_Storefront::thankyou( '4321' );
				}
			),
			'the hook firing again on the same page'
		);
	}
);

test(
	'thank-you: nothing for a failed, cancelled or missing order, a refund, or a store not connected',
	function () {
		$cases = array(
			'failed'        => function () {
				WP_State::$orders[4321] = shop_order( 'failed' );
			},
			'cancelled'     => function () {
				WP_State::$orders[4321] = shop_order( 'cancelled' );
			},
			'missing'       => function () {
			},
			'refund'        => function () {
				WP_State::$orders[4321] = new WC_Order_Refund( array( 'id' => 4321 ) );
			},
			'not connected' => function () {
				WP_State::$orders[4321] = shop_order();
				delete_option( 'sillage_publishable_key' );
			},
		);
		foreach ( $cases as $what => $setup ) {
			connected_site();
			reset_printed();
			$setup();
			eq(
				'',
				capture(
					function () {
						Sillage_Storefront::thankyou( 4321 );
					}
				),
				$what
			);
		}
		connected_site();
		reset_printed();
		WP_State::$orders[4321] = shop_order( 'on-hold' );
		contains(
			'trackPurchase',
			capture(
				function () {
					Sillage_Storefront::thankyou( 4321 );
				}
			),
			'an order on hold (a bank transfer) is reported'
		);
		reset_printed();
		eq(
			'',
			capture(
				function () {
					Sillage_Storefront::thankyou( 0 );
				}
			),
			'no order id'
		);
	}
);
