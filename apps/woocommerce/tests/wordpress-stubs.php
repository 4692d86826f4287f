<?php
/**
 * Stand-ins for the WordPress and WooCommerce functions and classes the
 * plugin calls, small and strict: options in an array, hooks recorded,
 * requests recorded and answered from a queue, redirects and wp_die()
 * thrown so that the code after them (exit) is never reached.
 *
 * @package Sillage
 */

defined( 'ABSPATH' ) || exit;

define( 'MINUTE_IN_SECONDS', 60 );

/** A redirect (wp_safe_redirect()): the test reads where to. */
final class Sillage_Test_Redirect extends Exception {
	/**
	 * Where to.
	 *
	 * @var string
	 */
	public $location;

	/**
	 * The redirect.
	 *
	 * @param string $location Where to.
	 */
	public function __construct( $location ) {
		parent::__construct( 'redirect to ' . $location );
		$this->location = $location;
	}
}

/** wp_die(). */
final class Sillage_Test_Die extends Exception {
}

/**
 * The stand-ins' state, set afresh by wp_reset().
 */
final class WP_State {
	/** @var array */
	public static $options = array();
	/** @var array */
	public static $transients = array();
	/** @var array */
	public static $actions = array();
	/** @var array */
	public static $filters = array();
	/** @var array */
	public static $requests = array();
	/** @var array */
	public static $responses = array();
	/** @var array */
	public static $scripts = array();
	/** @var array */
	public static $orders = array();
	/** @var array<int, WC_Webhook> */
	public static $webhooks = array();
	/** @var int */
	public static $next_webhook_id = 100;
	/** @var bool */
	public static $can = true;
	/** @var bool */
	public static $nonce_ok = true;
	/** @var string */
	public static $locale = 'ar';
	/** @var bool */
	public static $order_received_page = false;
	/** @var int */
	public static $user_id = 7;
	/** @var array */
	public static $deactivation = array();
	/** @var array */
	public static $rest_routes = array();
}

/**
 * Everything back to a fresh site.
 */
function wp_reset() {
	WP_State::$options             = array();
	WP_State::$transients          = array();
	WP_State::$actions             = array();
	WP_State::$filters             = array();
	WP_State::$requests            = array();
	WP_State::$responses           = array();
	WP_State::$scripts             = array();
	WP_State::$orders              = array();
	WP_State::$webhooks            = array();
	WP_State::$next_webhook_id     = 100;
	WP_State::$can                 = true;
	WP_State::$nonce_ok            = true;
	WP_State::$locale              = 'ar';
	WP_State::$order_received_page = false;
	WP_State::$user_id             = 7;
	WP_State::$rest_routes         = array();
	$_GET                          = array();
	$_POST                         = array();
	$_REQUEST                      = array();
}

/** WordPress's error. */
class WP_Error {
	/** @var string */
	private $code;
	/** @var string */
	private $message;
	/** @var mixed */
	private $data;

	/**
	 * An error.
	 *
	 * @param string $code    Code.
	 * @param string $message Message.
	 * @param mixed  $data    Data (a REST error's status).
	 */
	public function __construct( $code = '', $message = '', $data = '' ) {
		$this->code    = $code;
		$this->message = $message;
		$this->data    = $data;
	}

	/** @return mixed */
	public function get_error_data() {
		return $this->data;
	}

	/** @return string */
	public function get_error_message() {
		return $this->message;
	}

	/** @return string */
	public function get_error_code() {
		return $this->code;
	}
}

/** A user. */
class WP_User {
	/** @var int */
	public $ID = 7;
	/** @var string */
	public $user_email = 'owner+shop@attar.example';
}

/** A REST request: its parameters. */
class WP_REST_Request {
	/** @var array */
	private $params;

	/**
	 * A request.
	 *
	 * @param array $params Its parameters.
	 */
	public function __construct( array $params = array() ) {
		$this->params = $params;
	}

	/**
	 * A parameter.
	 *
	 * @param string $name Its name.
	 * @return mixed
	 */
	public function get_param( $name ) {
		return isset( $this->params[ $name ] ) ? $this->params[ $name ] : null;
	}
}

/** A REST response. */
class WP_REST_Response {
	/** @var mixed */
	public $data;
	/** @var int */
	public $status;
	/** @var array */
	public $headers = array();

	/**
	 * A response.
	 *
	 * @param mixed $data   Its data.
	 * @param int   $status Its status.
	 */
	public function __construct( $data = null, $status = 200 ) {
		$this->data   = $data;
		$this->status = $status;
	}

	/**
	 * Sets a header.
	 *
	 * @param string $name  Its name.
	 * @param string $value Its value.
	 */
	public function header( $name, $value ) {
		$this->headers[ $name ] = $value;
	}
}

function register_rest_route( $route_namespace, $route, $args = array() ) {
	WP_State::$rest_routes[ $route_namespace . $route ] = $args;
	return true;
}

// --- hooks ----------------------------------------------------------------

function add_action( $hook, $callback, $priority = 10, $args = 1 ) {
	WP_State::$actions[ $hook ][] = array( $callback, $priority, $args );
	return true;
}

function add_filter( $hook, $callback, $priority = 10, $args = 1 ) {
	WP_State::$filters[ $hook ][] = array( $callback, $priority, $args );
	return true;
}

function apply_filters( $hook, $value, ...$args ) {
	foreach ( isset( WP_State::$filters[ $hook ] ) ? WP_State::$filters[ $hook ] : array() as $filter ) {
		$value = call_user_func_array( $filter[0], array_slice( array_merge( array( $value ), $args ), 0, max( 1, $filter[2] ) ) );
	}
	return $value;
}

function register_deactivation_hook( $file, $callback ) {
	WP_State::$deactivation[ basename( $file ) ] = $callback;
}

function plugin_basename( $file ) {
	return 'sillage/' . basename( $file );
}

// --- options, transients ----------------------------------------------------

function get_option( $name, $default = false ) {
	return array_key_exists( $name, WP_State::$options ) ? WP_State::$options[ $name ] : $default;
}

function update_option( $name, $value, $autoload = null ) {
	WP_State::$options[ $name ] = $value;
	return true;
}

function delete_option( $name ) {
	unset( WP_State::$options[ $name ] );
	return true;
}

function get_transient( $name ) {
	return isset( WP_State::$transients[ $name ] ) ? WP_State::$transients[ $name ] : false;
}

function set_transient( $name, $value, $expiration = 0 ) {
	WP_State::$transients[ $name ] = $value;
	return true;
}

function delete_transient( $name ) {
	unset( WP_State::$transients[ $name ] );
	return true;
}

// --- users, nonces, redirects ----------------------------------------------

function current_user_can( $capability ) {
	return WP_State::$can && in_array( $capability, array( 'manage_woocommerce', 'activate_plugins' ), true );
}

function get_current_user_id() {
	return WP_State::$user_id;
}

function wp_get_current_user() {
	return new WP_User();
}

function check_admin_referer( $action ) {
	if ( ! WP_State::$nonce_ok || ! isset( $_REQUEST['_wpnonce'] ) || 'nonce-' . $action !== $_REQUEST['_wpnonce'] ) {
		throw new Sillage_Test_Die( 'bad nonce for ' . $action );
	}
	return 1;
}

function wp_nonce_field( $action ) {
	echo '<input type="hidden" name="_wpnonce" value="nonce-' . esc_attr( $action ) . '" />';
}

function wp_die( $message = '' ) {
	throw new Sillage_Test_Die( (string) $message );
}

function wp_safe_redirect( $location ) {
	$host    = parse_url( $location, PHP_URL_HOST );
	$allowed = apply_filters( 'allowed_redirect_hosts', array( 'attar.example' ), $host );
	throw new Sillage_Test_Redirect( null === $host || in_array( $host, $allowed, true ) ? $location : admin_url() );
}

function is_admin() {
	return true;
}

function is_multisite() {
	return false;
}

function wp_get_environment_type() {
	return 'production';
}

// --- addresses --------------------------------------------------------------

function home_url( $path = '' ) {
	return 'https://attar.example' . $path;
}

function admin_url( $path = '' ) {
	return 'https://attar.example/wp-admin/' . $path;
}

function wp_parse_url( $url, $component = -1 ) {
	return parse_url( $url, $component );
}

// --- escaping, sanitising, translating --------------------------------------

function esc_html( $text ) {
	return htmlspecialchars( (string) $text, ENT_QUOTES, 'UTF-8' );
}

function esc_attr( $text ) {
	return htmlspecialchars( (string) $text, ENT_QUOTES, 'UTF-8' );
}

function esc_url( $url ) {
	$url = (string) $url;
	return preg_match( '#^https?://#i', $url ) ? str_replace( '&', '&#038;', htmlspecialchars( $url, ENT_QUOTES, 'UTF-8', false ) ) : '';
}

function __( $text, $domain = 'default' ) {
	return $text;
}

function esc_html__( $text, $domain = 'default' ) {
	return esc_html( $text );
}

function esc_html_e( $text, $domain = 'default' ) {
	echo esc_html( $text );
}

function wp_kses_post( $html ) {
	return $html;
}

function wpautop( $text ) {
	return '<p>' . $text . '</p>';
}

function sanitize_text_field( $text ) {
	return trim( (string) preg_replace( '/[\r\n\t ]+/', ' ', strip_tags( (string) $text ) ) );
}

function wp_unslash( $value ) {
	return is_string( $value ) ? stripslashes( $value ) : $value;
}

function absint( $value ) {
	return abs( (int) $value );
}

function wp_json_encode( $value, $flags = 0 ) {
	return json_encode( $value, $flags );
}

function determine_locale() {
	return WP_State::$locale;
}

function disabled( $disabled ) {
	if ( $disabled ) {
		echo ' disabled="disabled"';
	}
}

function submit_button( $text, $type = 'primary', $name = 'submit', $wrap = true, $other = array() ) {
	$attributes = '';
	foreach ( (array) $other as $key => $value ) {
		$attributes .= ' ' . esc_attr( $key ) . '="' . esc_attr( $value ) . '"';
	}
	echo '<input type="submit" name="' . esc_attr( $name ) . '" class="button button-' . esc_attr( $type ) . '" value="' . esc_attr( $text ) . '"' . $attributes . ' />';
}

// --- HTTP -------------------------------------------------------------------

function is_wp_error( $thing ) {
	return $thing instanceof WP_Error;
}

function wp_safe_remote_post( $url, $args = array() ) {
	$GLOBALS['sillage_test_safe_posts'][] = $url;
	return wp_remote_post( $url, $args );
}

function wp_remote_post( $url, $args = array() ) {
	WP_State::$requests[] = array(
		'url'  => $url,
		'args' => $args,
	);
	return count( WP_State::$responses ) ? array_shift( WP_State::$responses ) : new WP_Error( 'http_request_failed', 'no answer queued' );
}

function wp_remote_retrieve_response_code( $response ) {
	return is_array( $response ) && isset( $response['response']['code'] ) ? $response['response']['code'] : '';
}

function wp_remote_retrieve_body( $response ) {
	return is_array( $response ) && isset( $response['body'] ) ? $response['body'] : '';
}

/**
 * Queues the answer to the next wp_remote_post().
 *
 * @param int    $code Status.
 * @param string $body Body.
 */
function wp_queue_response( $code, $body ) {
	WP_State::$responses[] = array(
		'response' => array( 'code' => $code ),
		'body'     => $body,
	);
}

// --- scripts ----------------------------------------------------------------

function wp_enqueue_script( $handle, $src = '', $deps = array(), $ver = false, $args = array() ) {
	WP_State::$scripts[ $handle ] = array( $src, $deps, $ver, $args );
}

function wp_print_inline_script_tag( $data, $attributes = array() ) {
	$attrs = '';
	foreach ( $attributes as $key => $value ) {
		$attrs .= ' ' . $key . '="' . esc_attr( $value ) . '"';
	}
	echo '<script' . $attrs . '>' . $data . "</script>\n";
}

function is_order_received_page() {
	return WP_State::$order_received_page;
}

// --- WooCommerce --------------------------------------------------------------

/** A WooCommerce webhook, kept in WP_State::$webhooks once saved. */
class WC_Webhook {
	/** @var array */
	public $props = array(
		'id'     => 0,
		'status' => 'disabled',
	);

	public function set_name( $name ) {
		$this->props['name'] = $name;
	}

	public function set_topic( $topic ) {
		$this->props['topic'] = $topic;
	}

	public function set_delivery_url( $url ) {
		$this->props['delivery_url'] = $url;
	}

	public function set_secret( $secret ) {
		$this->props['secret'] = $secret;
	}

	public function set_status( $status ) {
		$this->props['status'] = $status;
	}

	public function set_user_id( $id ) {
		$this->props['user_id'] = (int) $id;
	}

	public function set_api_version( $version ) {
		$this->props['api_version'] = $version;
	}

	public function get_status() {
		return $this->props['status'];
	}

	public function save() {
		if ( ! $this->props['id'] ) {
			$this->props['id'] = WP_State::$next_webhook_id++;
		}
		WP_State::$webhooks[ $this->props['id'] ] = $this;
		return $this->props['id'];
	}

	public function delete( $force = false ) {
		if ( true !== $force ) {
			throw new Exception( 'webhooks are deleted for good' );
		}
		unset( WP_State::$webhooks[ $this->props['id'] ] );
		return true;
	}
}

function wc_get_webhook( $id ) {
	return isset( WP_State::$webhooks[ $id ] ) ? WP_State::$webhooks[ $id ] : null;
}

/** An order line for a product. */
class WC_Order_Item_Product {
	/** @var array */
	private $data;

	public function __construct( array $data ) {
		$this->data = $data;
	}

	public function get_product_id() {
		return $this->data['product_id'];
	}

	public function get_variation_id() {
		return isset( $this->data['variation_id'] ) ? $this->data['variation_id'] : 0;
	}

	public function get_quantity() {
		return $this->data['quantity'];
	}

	public function get_total() {
		return $this->data['total'];
	}
}

/** A shipping line (not a product). */
class WC_Order_Item_Shipping {
}

/** What orders and refunds share. */
abstract class WC_Abstract_Order {
	/** @var array */
	protected $data;

	public function __construct( array $data ) {
		$this->data = $data;
	}

	public function get_id() {
		return $this->data['id'];
	}
}

/** An order. */
class WC_Order extends WC_Abstract_Order {
	public function get_total() {
		return $this->data['total'];
	}

	public function get_currency() {
		return $this->data['currency'];
	}

	public function has_status( $status ) {
		return in_array( $this->data['status'], (array) $status, true );
	}

	public function get_items( $type = 'line_item' ) {
		return 'line_item' === $type ? $this->data['items'] : array();
	}
}

/** A refund. */
class WC_Order_Refund extends WC_Abstract_Order {
}

function wc_get_order( $id ) {
	return isset( WP_State::$orders[ $id ] ) ? WP_State::$orders[ $id ] : false;
}
