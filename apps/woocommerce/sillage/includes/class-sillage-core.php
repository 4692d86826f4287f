<?php
/**
 * The plugin's pure logic: no WordPress function is called here, so that
 * apps/woocommerce/tests/run.php can check it with PHP alone.
 *
 * @package Sillage
 */

defined( 'ABSPATH' ) || exit;

/**
 * Building the connect address, confirming a connection with the
 * installation key, reading the service's claim answer, the purchase the
 * thank-you page reports, the signature of a message to the service, and the
 * widget's locale. Static methods on plain values.
 */
final class Sillage_Core {

	/** The plugin's version (sillage.php's header says the same). */
	const VERSION = '0.2.0';

	/** The WooCommerce topics the plugin subscribes the service to. */
	const WEBHOOK_TOPICS = array(
		'product.created',
		'product.updated',
		'product.deleted',
		'order.created',
		'order.updated',
	);

	/** The topic of the message the plugin sends when the store leaves. */
	const DISCONNECT_TOPIC = 'sillage.disconnected';

	/** Why the store left: the admin pressed Disconnect, or deactivated the plugin. */
	const DISCONNECT_REASONS = array( 'disconnected', 'deactivated' );

	/** The most lines a purchase carries (the service reads no more). */
	const MAX_ITEMS = 200;

	/** The most an order, a line's price, and the lines together may come to (the service refuses more). */
	const MAX_AMOUNT = 1000000000;

	/** The most of one product a line may hold (the service refuses more). */
	const MAX_QUANTITY = 10000;

	/** The flags that keep JSON printed in a <script> from closing it or opening a comment. */
	const SCRIPT_JSON_FLAGS = JSON_HEX_TAG | JSON_HEX_AMP | JSON_HEX_APOS | JSON_HEX_QUOT;

	/** Where the service's pieces are, below its base address. */
	const CONNECT_PATH = '/console/woocommerce/connect';
	const CLAIM_PATH   = '/api/platforms/woocommerce/connections/claim';
	const WEBHOOK_PATH = '/api/platforms/woocommerce/webhooks/';
	const WIDGET_PATH  = '/widget/v1/sillage.js';

	/** The REST route (namespace, route) by which the store confirms a connection it started. */
	const REST_NAMESPACE = 'sillage/v1';
	const REST_ROUTE     = '/connection';

	/**
	 * A new connect secret: 32 random bytes as 64 hex characters.
	 *
	 * @return string
	 */
	public static function new_secret() {
		return bin2hex( random_bytes( 32 ) );
	}

	/**
	 * Whether a value is a connect secret as new_secret() makes them.
	 *
	 * @param mixed $secret The stored value.
	 * @return bool
	 */
	public static function is_secret( $secret ) {
		return is_string( $secret ) && 1 === preg_match( '/^[0-9a-f]{64}$/', $secret );
	}

	/**
	 * A new installation key: an Ed25519 secret key (sodium, which WordPress
	 * always has) as 86 base64url characters. It names this installation of
	 * the plugin at the service: the store signs with it to confirm each
	 * connection it starts, and keeps it across Disconnect.
	 *
	 * @return string
	 */
	public static function new_installation_key() {
		return self::base64url( sodium_crypto_sign_secretkey( sodium_crypto_sign_keypair() ) );
	}

	/**
	 * Whether a value is an installation key as new_installation_key() makes them.
	 *
	 * @param mixed $key The stored value.
	 * @return bool
	 */
	public static function is_installation_key( $key ) {
		return is_string( $key ) && 1 === preg_match( '/^[A-Za-z0-9_-]{86}$/', $key );
	}

	/**
	 * The public half of an installation key, as the service knows it: 43
	 * base64url characters.
	 *
	 * @param string $key The installation key.
	 * @return string
	 */
	public static function installation_public_key( $key ) {
		return self::base64url( sodium_crypto_sign_publickey_from_secretkey( self::from_base64url( $key ) ) );
	}

	/**
	 * What the store signs to confirm a connection: the proof the connection
	 * started with and the service's challenge.
	 *
	 * @param string $proof     The proof (hex SHA-256 of the connect secret).
	 * @param string $challenge The service's challenge.
	 * @return string
	 */
	public static function connection_message( $proof, $challenge ) {
		return "sillage-woocommerce-connection\n" . $proof . "\n" . $challenge;
	}

	/**
	 * The store's answer when the service asks whether it started the
	 * connection with `$proof`: the proof, the installation's public key and
	 * the challenge signed with it. Null (nothing confirmed) unless a Connect
	 * is pending (its secret saved less than `$ttl` seconds ago) whose proof
	 * is `$proof`, the challenge is 43 base64url characters and the
	 * installation key is one.
	 *
	 * @param mixed  $secret    The saved connect secret.
	 * @param int    $started   When Connect was pressed (a Unix time).
	 * @param int    $now       The time now.
	 * @param int    $ttl       How long a connection may take, in seconds.
	 * @param mixed  $proof     The proof asked about.
	 * @param mixed  $challenge The service's challenge.
	 * @param mixed  $key       The installation key.
	 * @return array|null
	 */
	public static function connection_answer( $secret, $started, $now, $ttl, $proof, $challenge, $key ) {
		if (
			! self::is_secret( $secret )
			|| (int) $now - (int) $started > (int) $ttl
			|| ! is_string( $proof )
			|| 1 !== preg_match( '/^[0-9a-f]{64}$/', $proof )
			|| ! hash_equals( self::proof( $secret ), $proof )
			|| ! is_string( $challenge )
			|| 1 !== preg_match( '/^[A-Za-z0-9_-]{43}$/', $challenge )
			|| ! self::is_installation_key( $key )
		) {
			return null;
		}
		return array(
			'proof'     => $proof,
			'key'       => self::installation_public_key( $key ),
			'signature' => self::base64url(
				sodium_crypto_sign_detached( self::connection_message( $proof, $challenge ), self::from_base64url( $key ) )
			),
		);
	}

	/**
	 * Bytes as base64url without padding.
	 *
	 * @param string $bytes The bytes.
	 * @return string
	 */
	public static function base64url( $bytes ) {
		return rtrim( strtr( base64_encode( (string) $bytes ), '+/', '-_' ), '=' );
	}

	/**
	 * Base64url (without padding) back to bytes.
	 *
	 * @param string $text The text.
	 * @return string
	 */
	private static function from_base64url( $text ) {
		return (string) base64_decode( strtr( (string) $text, '-_', '+/' ), true );
	}

	/**
	 * What the connect address shows of the secret: its SHA-256, in hex. The
	 * claim later proves the plugin holds the secret itself.
	 *
	 * @param string $secret The connect secret.
	 * @return string
	 */
	public static function proof( $secret ) {
		return hash( 'sha256', (string) $secret );
	}

	/**
	 * The service's base address as the admin typed it, checked and without a
	 * trailing slash; '' when it is not one. https only, except for this
	 * machine (localhost, 127.0.0.1, [::1]) or when $allow_http is true.
	 * A user, password, query or fragment is refused.
	 *
	 * @param mixed $url        What the admin typed.
	 * @param bool  $allow_http Whether a plain http address is accepted anywhere.
	 * @return string
	 */
	public static function normalize_service_url( $url, $allow_http = false ) {
		if ( ! is_string( $url ) ) {
			return '';
		}
		$url   = trim( $url );
		$parts = self::url_parts( $url, true );
		if ( null === $parts || isset( $parts['query'] ) || isset( $parts['fragment'] ) ) {
			return '';
		}
		$loopback = in_array( $parts['host'], array( 'localhost', '127.0.0.1', '[::1]' ), true )
			|| '.localhost' === substr( $parts['host'], -10 );
		if ( 'https' !== $parts['scheme'] && ! ( $allow_http || $loopback ) ) {
			return '';
		}
		$path = isset( $parts['path'] ) ? rtrim( $parts['path'], '/' ) : '';
		$port = isset( $parts['port'] ) ? ':' . $parts['port'] : '';
		return $parts['scheme'] . '://' . $parts['host'] . $port . $path;
	}

	/**
	 * The address the Connect button sends the admin's browser to.
	 *
	 * @param string $service_url The service's base address (normalize_service_url()).
	 * @param string $home_url    The store's home_url().
	 * @param string $secret      The connect secret just saved.
	 * @param string $email       The admin's email address.
	 * @param string $admin_url   admin_url( 'admin.php' ): where the admin comes back to (WordPress
	 *                            may live in another folder than the store's home); '' for the default.
	 * @return string
	 */
	public static function connect_url( $service_url, $home_url, $secret, $email, $admin_url = '' ) {
		return rtrim( (string) $service_url, '/' ) . self::CONNECT_PATH
			. '?store=' . urlencode( (string) $home_url )
			. '&proof=' . self::proof( $secret )
			. '&email=' . urlencode( (string) $email )
			. ( '' === (string) $admin_url ? '' : '&admin=' . urlencode( (string) $admin_url ) );
	}

	/**
	 * The claim's address on the service.
	 *
	 * @param string $service_url The service's base address.
	 * @return string
	 */
	public static function claim_url( $service_url ) {
		return rtrim( (string) $service_url, '/' ) . self::CLAIM_PATH;
	}

	/**
	 * The widget script's address on the service.
	 *
	 * @param string $service_url The service's base address.
	 * @return string
	 */
	public static function widget_url( $service_url ) {
		return rtrim( (string) $service_url, '/' ) . self::WIDGET_PATH;
	}

	/**
	 * Whether the `sillage_connect` value the service sent back looks like a
	 * token (URL-safe characters, at most 2,000: it carries the store's
	 * address); anything else is not sent on.
	 *
	 * @param mixed $token The query parameter.
	 * @return bool
	 */
	public static function is_connect_token( $token ) {
		return is_string( $token ) && 1 === preg_match( '/^[A-Za-z0-9._~-]{1,2000}$/', $token );
	}

	/**
	 * The claim's body, before it is encoded as JSON.
	 *
	 * @param string $token  The `sillage_connect` token.
	 * @param string $secret The connect secret.
	 * @return array
	 */
	public static function claim_body( $token, $secret ) {
		return array(
			'token'  => (string) $token,
			'secret' => (string) $secret,
		);
	}

	/**
	 * Reads the claim's answer. On 200 every field is checked:
	 * `store_id` (letters, digits, `.`, `_`, `-`), `publishable_key`
	 * (`pk_live_…` or `pk_test_…`), `webhook_secret` (16 to 256 characters
	 * without `&`, which WooCommerce would read as an entity), `webhook_url`
	 * (https, ending in /api/platforms/woocommerce/webhooks/<store_id>) and
	 * `console_url` (https). Plain http is accepted for both addresses only
	 * when the service's own address is http.
	 *
	 * @param int|string $status      The HTTP status.
	 * @param string     $body        The answer's body.
	 * @param string     $service_url The service's base address.
	 * @return array `ok` true with the five fields, or `ok` false with `reason`
	 *               ('refused': `status`, `error`, `code` from the service; 'invalid': `field`).
	 */
	public static function parse_claim_answer( $status, $body, $service_url ) {
		$status = (int) $status;
		$data   = is_string( $body ) && strlen( $body ) <= 65536 ? json_decode( $body, true ) : null;

		if ( 200 !== $status ) {
			return array(
				'ok'     => false,
				'reason' => 'refused',
				'status' => $status,
				'error'  => is_array( $data ) && isset( $data['error'] ) ? self::clean_text( $data['error'], 300 ) : '',
				'code'   => is_array( $data ) && isset( $data['code'] ) ? self::clean_text( $data['code'], 100 ) : '',
			);
		}
		if ( ! is_array( $data ) ) {
			return self::invalid( 'body' );
		}

		$store_id = isset( $data['store_id'] ) ? $data['store_id'] : null;
		if ( ! is_string( $store_id ) || 1 !== preg_match( '/^(?=.*[A-Za-z0-9])[A-Za-z0-9._-]{1,128}$/', $store_id ) ) {
			return self::invalid( 'store_id' );
		}
		$key = isset( $data['publishable_key'] ) ? $data['publishable_key'] : null;
		if ( ! is_string( $key ) || 1 !== preg_match( '/^pk_(live|test)_[A-Za-z0-9]{8,100}$/', $key ) ) {
			return self::invalid( 'publishable_key' );
		}
		$secret = isset( $data['webhook_secret'] ) ? $data['webhook_secret'] : null;
		if ( ! is_string( $secret ) || 1 !== preg_match( '#^[A-Za-z0-9._~+/=-]{16,256}$#', $secret ) ) {
			return self::invalid( 'webhook_secret' );
		}

		$service    = self::url_parts( (string) $service_url, true );
		$allow_http = null !== $service && 'http' === $service['scheme'];

		$webhook_url = isset( $data['webhook_url'] ) ? $data['webhook_url'] : null;
		$webhook     = is_string( $webhook_url ) ? self::url_parts( $webhook_url, $allow_http ) : null;
		$suffix      = self::WEBHOOK_PATH . $store_id;
		if (
			null === $webhook
			|| isset( $webhook['query'] )
			|| isset( $webhook['fragment'] )
			|| ! isset( $webhook['path'] )
			|| substr( $webhook['path'], -strlen( $suffix ) ) !== $suffix
		) {
			return self::invalid( 'webhook_url' );
		}

		// the webhooks and the console are the service's own: an answer pointing elsewhere is refused
		if ( null === $service || ! self::same_origin( $webhook, $service ) ) {
			return self::invalid( 'webhook_url' );
		}

		$console_url = isset( $data['console_url'] ) ? $data['console_url'] : null;
		$console     = is_string( $console_url ) ? self::url_parts( $console_url, $allow_http ) : null;
		if ( null === $console || ! self::same_origin( $console, $service ) ) {
			return self::invalid( 'console_url' );
		}

		return array(
			'ok'              => true,
			'store_id'        => $store_id,
			'publishable_key' => $key,
			'webhook_secret'  => $secret,
			'webhook_url'     => $webhook_url,
			'console_url'     => $console_url,
		);
	}

	/**
	 * The signature WooCommerce puts in `X-WC-Webhook-Signature`: base64 of
	 * the HMAC-SHA256 of the body with the webhook's secret.
	 *
	 * @param string $body   The exact body sent.
	 * @param string $secret The webhook secret.
	 * @return string
	 */
	public static function signature( $body, $secret ) {
		return base64_encode( hash_hmac( 'sha256', (string) $body, (string) $secret, true ) );
	}

	/**
	 * The body of the message telling the service the store left.
	 *
	 * @param string $store_id The store's id at the service.
	 * @param string $reason   'disconnected' or 'deactivated' (anything else is 'disconnected').
	 * @return string
	 */
	public static function disconnect_body( $store_id, $reason ) {
		$reason = in_array( $reason, self::DISCONNECT_REASONS, true ) ? $reason : 'disconnected';
		return (string) json_encode(
			array(
				'store_id' => (string) $store_id,
				'reason'   => $reason,
			),
			JSON_UNESCAPED_SLASHES
		);
	}

	/**
	 * The headers of that message: signed as WooCommerce signs its webhooks.
	 *
	 * @param string $body   The body (disconnect_body()).
	 * @param string $secret The webhook secret.
	 * @param string $source The store's home_url( '/' ).
	 * @return array
	 */
	public static function disconnect_headers( $body, $secret, $source ) {
		return array(
			'Content-Type'           => 'application/json',
			'X-WC-Webhook-Topic'     => self::DISCONNECT_TOPIC,
			'X-WC-Webhook-Signature' => self::signature( $body, $secret ),
			'X-WC-Webhook-Source'    => (string) $source,
		);
	}

	/**
	 * The name a webhook is given in WooCommerce → Settings → Advanced → Webhooks.
	 *
	 * @param string $topic The topic.
	 * @return string
	 */
	public static function webhook_name( $topic ) {
		return 'Sillage: ' . $topic;
	}

	/**
	 * The widget's language for a WordPress locale: `ar` for Arabic (`ar`,
	 * `ary` Moroccan, `arq` Algerian, with or without a region), else `en`.
	 * Aragonese (`arg`) is not Arabic.
	 *
	 * @param mixed $locale determine_locale().
	 * @return string
	 */
	public static function locale_for( $locale ) {
		return is_string( $locale ) && 1 === preg_match( '/^ar[yq]?(?:[_-]|$)/i', $locale ) ? 'ar' : 'en';
	}

	/**
	 * The purchase the thank-you page reports, from an order as plain values:
	 *
	 *     array(
	 *       'id'       => 1234,
	 *       'total'    => '540.00',
	 *       'currency' => 'SAR',
	 *       'items'    => array(
	 *         array( 'product_id' => 501, 'quantity' => 2, 'total' => '360.00' ),
	 *       ),
	 *     )
	 *
	 * `product_id` is the product a line belongs to (for a variation, its
	 * parent: WooCommerce's `$item->get_product_id()`), and `total` the line's
	 * total (after discounts); a line's price is its total over its quantity.
	 * A line without a product, with a quantity that is not a whole number
	 * from 1 to 10,000, or an amount that is not a number from 0 to
	 * 1,000,000,000 is left out; at most 200 lines are kept, and no more than
	 * add up (quantity × price) to 1,000,000,000. Null when the order has no
	 * id, total or currency, or no line is left.
	 *
	 * @param array $order The order.
	 * @return array|null
	 */
	public static function purchase_payload( array $order ) {
		$order_id = self::id_string( isset( $order['id'] ) ? $order['id'] : null );
		$total    = self::amount( isset( $order['total'] ) ? $order['total'] : null );
		$currency = isset( $order['currency'] ) ? $order['currency'] : null;
		if ( null === $order_id || null === $total || ! is_string( $currency ) || 1 !== preg_match( '/^[A-Za-z]{3}$/', $currency ) ) {
			return null;
		}

		$items = array();
		$sum   = 0.0;
		$lines = isset( $order['items'] ) && is_array( $order['items'] ) ? $order['items'] : array();
		foreach ( $lines as $line ) {
			if ( count( $items ) >= self::MAX_ITEMS ) {
				break;
			}
			if ( ! is_array( $line ) ) {
				continue;
			}
			$product_id = self::id_string( isset( $line['product_id'] ) ? $line['product_id'] : null );
			$quantity   = self::quantity( isset( $line['quantity'] ) ? $line['quantity'] : null );
			$line_total = self::amount( isset( $line['total'] ) ? $line['total'] : null );
			if ( null === $product_id || null === $quantity || null === $line_total ) {
				continue;
			}
			$price = round( $line_total / $quantity, 4 );
			if ( $sum + $quantity * $price > self::MAX_AMOUNT ) {
				continue;
			}
			$sum    += $quantity * $price;
			$items[] = array(
				'merchant_product_id' => $product_id,
				'quantity'            => $quantity,
				'price'               => $price,
			);
		}
		if ( ! $items ) {
			return null;
		}

		return array(
			'order_id' => $order_id,
			'total'    => $total,
			'currency' => strtoupper( $currency ),
			'items'    => $items,
		);
	}

	/**
	 * The inline script that queues the purchase for the widget (which
	 * replays `window.Sillage.q` when it loads). The JSON is encoded with
	 * SCRIPT_JSON_FLAGS: `<`, `>`, `&`, `'` and `"` become \u escapes, so no
	 * value can close the script. '' when the payload cannot be encoded.
	 *
	 * @param array         $payload purchase_payload().
	 * @param callable|null $encode  The encoder, called as ( $value, $flags ): json_encode by default, wp_json_encode in WordPress.
	 * @return string
	 */
	public static function purchase_script( array $payload, $encode = null ) {
		$json = null === $encode
			? json_encode( $payload, self::SCRIPT_JSON_FLAGS )
			: call_user_func( $encode, $payload, self::SCRIPT_JSON_FLAGS );
		if ( ! is_string( $json ) || '' === $json ) {
			return '';
		}
		return "window.Sillage=window.Sillage||{};(window.Sillage.q=window.Sillage.q||[]).push(['trackPurchase', " . $json . ']);';
	}

	/**
	 * A positive whole number (an int, or its digits) as a string; else null.
	 *
	 * @param mixed $value The id.
	 * @return string|null
	 */
	private static function id_string( $value ) {
		if ( is_int( $value ) ) {
			return $value > 0 ? (string) $value : null;
		}
		return is_string( $value ) && 1 === preg_match( '/^[1-9][0-9]{0,19}$/', $value ) ? $value : null;
	}

	/**
	 * An amount (a number, or a plain decimal string) from 0 to MAX_AMOUNT; else null.
	 *
	 * @param mixed $value The amount.
	 * @return float|null
	 */
	private static function amount( $value ) {
		if ( is_string( $value ) ) {
			$value = trim( $value );
			if ( 1 !== preg_match( '/^[0-9]{1,13}(?:\.[0-9]{1,20})?$/', $value ) ) {
				return null;
			}
			$value = (float) $value;
		}
		if ( ! is_int( $value ) && ! is_float( $value ) ) {
			return null;
		}
		$value = (float) $value;
		if ( ! is_finite( $value ) || $value < 0 || $value > self::MAX_AMOUNT ) {
			return null;
		}
		// -0 is 0 (JSON would write it as -0.0)
		return 0.0 === $value ? 0.0 : $value;
	}

	/**
	 * A whole quantity from 1 to MAX_QUANTITY (an int, a float without a
	 * fraction, or digits); else null.
	 *
	 * @param mixed $value The quantity.
	 * @return int|null
	 */
	private static function quantity( $value ) {
		if ( is_string( $value ) && 1 === preg_match( '/^[0-9]{1,5}$/', $value ) ) {
			$value = (int) $value;
		} elseif ( is_float( $value ) && is_finite( $value ) && floor( $value ) === $value && abs( $value ) <= self::MAX_QUANTITY ) {
			$value = (int) $value;
		}
		return is_int( $value ) && $value >= 1 && $value <= self::MAX_QUANTITY ? $value : null;
	}

	/**
	 * Whether two addresses' parts (url_parts()) have one origin: scheme,
	 * host and port (the scheme's own when none is given).
	 *
	 * @param array $a One address's parts.
	 * @param array $b The other's.
	 * @return bool
	 */
	private static function same_origin( $a, $b ) {
		$port = function ( $p ) {
			return isset( $p['port'] ) ? (int) $p['port'] : ( 'https' === $p['scheme'] ? 443 : 80 );
		};
		return $a['scheme'] === $b['scheme'] && $a['host'] === $b['host'] && $port( $a ) === $port( $b );
	}

	/**
	 * An address's parts when it is a plain http(s) address: lowercase scheme
	 * and host, no user or password, no white space, quotes or angle
	 * brackets, at most 2,000 characters, an ASCII host name. Null otherwise,
	 * and for http unless $allow_http.
	 *
	 * @param string $url        The address.
	 * @param bool   $allow_http Whether http is accepted (https always is).
	 * @return array|null
	 */
	private static function url_parts( $url, $allow_http ) {
		if ( '' === $url || strlen( $url ) > 2000 || 1 === preg_match( '/[\x00-\x20\x7f-\xff"\'<>`\\\\{}|^]/', $url ) ) {
			return null;
		}
		$parts = parse_url( $url );
		if ( ! is_array( $parts ) || ! isset( $parts['scheme'], $parts['host'] ) || isset( $parts['user'] ) || isset( $parts['pass'] ) ) {
			return null;
		}
		$parts['scheme'] = strtolower( $parts['scheme'] );
		$parts['host']   = strtolower( $parts['host'] );
		if ( 'https' !== $parts['scheme'] && ! ( $allow_http && 'http' === $parts['scheme'] ) ) {
			return null;
		}
		$name = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
		if ( 1 !== preg_match( '/^(?:' . $name . '(?:\.' . $name . ')*|\[[0-9a-f:.]+\])$/', $parts['host'] ) ) {
			return null;
		}
		if ( 0 !== strpos( substr( $url, strlen( $parts['scheme'] ) ), '://' ) ) {
			return null;
		}
		return $parts;
	}

	/**
	 * A refusal for a field of the claim's answer.
	 *
	 * @param string $field The field.
	 * @return array
	 */
	private static function invalid( $field ) {
		return array(
			'ok'     => false,
			'reason' => 'invalid',
			'field'  => $field,
		);
	}

	/**
	 * A text from the service made safe to keep: valid UTF-8, no control
	 * characters, white space collapsed, at most $max characters. Escaping
	 * is still done where it is printed.
	 *
	 * @param mixed $text The text.
	 * @param int   $max  The most characters kept.
	 * @return string
	 */
	private static function clean_text( $text, $max ) {
		if ( ! is_string( $text ) || 1 !== preg_match( '//u', $text ) ) {
			return '';
		}
		$text = trim( (string) preg_replace( '/[\s\p{Cc}\p{Cf}]+/u', ' ', $text ) );
		return 1 === preg_match( '/^.{0,' . (int) $max . '}/su', $text, $m ) ? $m[0] : '';
	}
}
