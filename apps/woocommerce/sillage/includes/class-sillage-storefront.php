<?php
/**
 * The storefront: the widget's script on every page, and the purchase
 * reported on the order-received page.
 *
 * @package Sillage
 */

defined( 'ABSPATH' ) || exit;

/**
 * Loads the widget with the store's publishable key once connected, and
 * queues `trackPurchase` for the widget on the thank-you page.
 */
final class Sillage_Storefront {

	/** The widget script's handle. */
	const HANDLE = 'sillage-widget';

	/**
	 * The orders whose purchase this request has printed already: the
	 * thank-you hook may fire twice on one page (a theme's template and the
	 * order confirmation block, for instance).
	 *
	 * @var array<int, true>
	 */
	private static $printed = array();

	/**
	 * Hooks the storefront side.
	 */
	public static function init() {
		add_action( 'wp_enqueue_scripts', array( __CLASS__, 'enqueue' ) );
		add_filter( 'script_loader_tag', array( __CLASS__, 'script_tag' ), 10, 3 );
		add_action( 'woocommerce_thankyou', array( __CLASS__, 'thankyou' ), 20, 1 );
	}

	/**
	 * The widget's script, deferred, in the footer, when the store is connected.
	 */
	public static function enqueue() {
		if ( ! Sillage_Admin::is_connected() ) {
			return;
		}
		wp_enqueue_script(
			self::HANDLE,
			Sillage_Core::widget_url( Sillage_Admin::service_url() ),
			array(),
			null, // phpcs:ignore WordPress.WP.EnqueuedResourceParameters.MissingVersion -- the service versions its own script.
			array(
				'strategy'  => 'defer',
				'in_footer' => true,
			)
		);
	}

	/**
	 * The widget's settings on its own tag: the key, the language and the
	 * service's address; on the order-received page, no launcher
	 * (`data-mount="none"`: the script is there to report the purchase).
	 *
	 * @param string $tag    The tag WordPress prints.
	 * @param string $handle The script's handle.
	 * @param string $src    The script's address.
	 * @return string
	 */
	public static function script_tag( $tag, $handle, $src = '' ) {
		unset( $src );
		if ( self::HANDLE !== $handle || ! Sillage_Admin::is_connected() ) {
			return $tag;
		}
		$attributes = sprintf(
			' data-key="%s" data-locale="%s" data-base-url="%s"',
			esc_attr( (string) get_option( 'sillage_publishable_key', '' ) ),
			esc_attr( Sillage_Core::locale_for( determine_locale() ) ),
			esc_url( Sillage_Admin::service_url() )
		);
		if ( function_exists( 'is_order_received_page' ) && is_order_received_page() ) {
			$attributes .= ' data-mount="none"';
		}
		// The first <script> with a src is the widget's (an inline script added before it has none).
		$with = preg_replace( '/<script\b(?=[^>]*\ssrc=)/i', '<script' . $attributes, $tag, 1 );
		return is_string( $with ) ? $with : $tag;
	}

	/**
	 * On the order-received page: queues the purchase for the widget, once
	 * per order, unless the order failed or was cancelled.
	 *
	 * @param int $order_id The order's id.
	 */
	public static function thankyou( $order_id ) {
		$order_id = absint( $order_id );
		if ( ! $order_id || isset( self::$printed[ $order_id ] ) || ! Sillage_Admin::is_connected() ) {
			return;
		}
		$order = wc_get_order( $order_id );
		if ( ! $order instanceof WC_Order || $order->has_status( array( 'failed', 'cancelled' ) ) ) {
			return;
		}
		self::$printed[ $order_id ] = true;

		$lines = array();
		foreach ( $order->get_items( 'line_item' ) as $item ) {
			if ( ! $item instanceof WC_Order_Item_Product ) {
				continue;
			}
			$lines[] = array(
				// the parent product for a variation: the catalogue the service knows is by product
				'product_id' => $item->get_product_id(),
				'quantity'   => $item->get_quantity(),
				'total'      => $item->get_total(),
			);
		}
		$payload = Sillage_Core::purchase_payload(
			array(
				'id'       => $order->get_id(),
				'total'    => $order->get_total(),
				'currency' => $order->get_currency(),
				'items'    => $lines,
			)
		);
		if ( null === $payload ) {
			return;
		}
		$script = Sillage_Core::purchase_script( $payload, 'wp_json_encode' );
		if ( '' !== $script ) {
			wp_print_inline_script_tag( $script, array( 'id' => 'sillage-purchase-' . $order_id ) );
		}
	}
}
