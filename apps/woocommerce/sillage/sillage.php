<?php
/**
 * Plugin Name:          Sillage Scent Quiz
 * Description:          A short perfume quiz on your WooCommerce store that recommends perfumes from your own catalogue, in Arabic or English. Connect the store once; products, orders and purchases reach Sillage on their own.
 * Version:              0.2.0
 * Requires at least:    6.3
 * Requires PHP:         7.4
 * Requires Plugins:     woocommerce
 * WC requires at least: 8.0
 * Text Domain:          sillage
 * Domain Path:          /languages
 * License:              GPL-2.0-or-later
 * License URI:          https://www.gnu.org/licenses/gpl-2.0.html
 *
 * @package Sillage
 */

defined( 'ABSPATH' ) || exit;

define( 'SILLAGE_PLUGIN_FILE', __FILE__ );

require_once __DIR__ . '/includes/class-sillage-core.php';
require_once __DIR__ . '/includes/class-sillage-admin.php';
require_once __DIR__ . '/includes/class-sillage-storefront.php';

register_deactivation_hook( __FILE__, array( 'Sillage_Admin', 'deactivate' ) );

add_action( 'before_woocommerce_init', 'sillage_declare_compatibility' );
add_action( 'init', 'sillage_load_textdomain' );
add_action( 'plugins_loaded', 'sillage_boot' );

/**
 * The plugin reads orders through wc_get_order() only, so it works with
 * WooCommerce's order tables (HPOS) and with the block cart and checkout.
 */
function sillage_declare_compatibility() {
	if ( class_exists( 'Automattic\WooCommerce\Utilities\FeaturesUtil' ) ) {
		\Automattic\WooCommerce\Utilities\FeaturesUtil::declare_compatibility( 'custom_order_tables', SILLAGE_PLUGIN_FILE, true );
		\Automattic\WooCommerce\Utilities\FeaturesUtil::declare_compatibility( 'cart_checkout_blocks', SILLAGE_PLUGIN_FILE, true );
	}
}

/**
 * The plugin's translations (Arabic ships in languages/).
 */
function sillage_load_textdomain() {
	load_plugin_textdomain( 'sillage', false, dirname( plugin_basename( SILLAGE_PLUGIN_FILE ) ) . '/languages' );
}

/**
 * Starts the plugin once WooCommerce is loaded; without it, only a notice.
 */
function sillage_boot() {
	if ( ! class_exists( 'WooCommerce' ) ) {
		add_action( 'admin_notices', 'sillage_woocommerce_missing_notice' );
		return;
	}
	if ( is_admin() ) {
		Sillage_Admin::init();
	}
	add_action( 'rest_api_init', array( 'Sillage_Admin', 'register_rest_routes' ) );
	Sillage_Storefront::init();
}

/**
 * Tells those who can manage plugins that WooCommerce is needed.
 */
function sillage_woocommerce_missing_notice() {
	if ( ! current_user_can( 'activate_plugins' ) ) {
		return;
	}
	printf(
		'<div class="notice notice-error"><p>%s</p></div>',
		esc_html__( 'Sillage Scent Quiz needs WooCommerce. Install and activate WooCommerce, then connect your store from WooCommerce → Sillage.', 'sillage' )
	);
}
