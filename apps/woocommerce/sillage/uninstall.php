<?php
/**
 * Deleting the plugin: its webhooks (when any are left) and its options,
 * the installation key included (a later connection is a new merchant at the
 * service). The store left the service already when the plugin was deactivated.
 *
 * @package Sillage
 */

defined( 'WP_UNINSTALL_PLUGIN' ) || exit;

/**
 * One site's part.
 */
function sillage_uninstall_site() {
	$ids = get_option( 'sillage_webhook_ids', array() );
	if ( function_exists( 'wc_get_webhook' ) && is_array( $ids ) ) {
		foreach ( $ids as $id ) {
			$webhook = wc_get_webhook( (int) $id );
			if ( $webhook ) {
				$webhook->delete( true );
			}
		}
	}
	$options = array(
		'sillage_service_url',
		'sillage_store_id',
		'sillage_publishable_key',
		'sillage_webhook_secret',
		'sillage_webhook_url',
		'sillage_console_url',
		'sillage_webhook_ids',
		'sillage_connect_secret',
		'sillage_connect_started',
		'sillage_installation_key',
	);
	foreach ( $options as $option ) {
		delete_option( $option );
	}
}

if ( is_multisite() ) {
	$sillage_sites = get_sites(
		array(
			'fields' => 'ids',
			'number' => 0,
		)
	);
	foreach ( $sillage_sites as $sillage_site ) {
		switch_to_blog( (int) $sillage_site );
		sillage_uninstall_site();
		restore_current_blog();
	}
} else {
	sillage_uninstall_site();
}
