<?php
/**
 * The settings page (WooCommerce → Sillage): the service's address, Connect,
 * the claim when the admin comes back, the store's webhooks, Disconnect.
 *
 * @package Sillage
 */

defined( 'ABSPATH' ) || exit;

/**
 * The admin side. Every action checks `manage_woocommerce`; the forms carry
 * nonces. The return from the service cannot carry one (the service builds
 * that address): it is bound instead to the connect secret, which only this
 * store holds, is used once and expires after an hour. The service starts a
 * connection only once the store confirms it (the REST route
 * `sillage/v1/connection`, public: it answers only for the pending connect
 * secret's proof, with the service's challenge signed by the installation key).
 */
final class Sillage_Admin {

	/** The settings page's slug: admin.php?page=sillage. */
	const PAGE = 'sillage';

	/** Who may see the page and act on it. */
	const CAPABILITY = 'manage_woocommerce';

	/** How long after Connect the claim may come back, in seconds. */
	const CONNECT_TTL = 3600;

	/** The options the plugin keeps (uninstall.php deletes the same list). */
	const OPTIONS = array(
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

	/** The options Disconnect keeps: the service's address, and the installation key (the same merchant when connecting again). */
	const KEPT_ON_DISCONNECT = array(
		'sillage_service_url',
		'sillage_webhook_ids',
		'sillage_installation_key',
	);

	/**
	 * Hooks the admin side.
	 */
	public static function init() {
		add_action( 'admin_menu', array( __CLASS__, 'menu' ), 60 );
		add_action( 'admin_init', array( __CLASS__, 'privacy_policy' ) );
		add_action( 'admin_post_sillage_save', array( __CLASS__, 'handle_save' ) );
		add_action( 'admin_post_sillage_connect', array( __CLASS__, 'handle_connect' ) );
		add_action( 'admin_post_sillage_disconnect', array( __CLASS__, 'handle_disconnect' ) );
		add_filter( 'plugin_action_links_' . plugin_basename( SILLAGE_PLUGIN_FILE ), array( __CLASS__, 'action_links' ) );
	}

	/**
	 * The REST route by which the store confirms to the service a connection
	 * it started (hooked on rest_api_init for every request, not only the
	 * admin's: the service calls it).
	 */
	public static function register_rest_routes() {
		register_rest_route(
			Sillage_Core::REST_NAMESPACE,
			Sillage_Core::REST_ROUTE,
			array(
				'methods'             => 'GET',
				'callback'            => array( __CLASS__, 'confirm_connection' ),
				// public: the service asks it; it reveals nothing but a signature over the service's challenge
				'permission_callback' => '__return_true',
				'args'                => array(
					'proof'     => array(
						'type'     => 'string',
						'required' => true,
					),
					'challenge' => array(
						'type'     => 'string',
						'required' => true,
					),
				),
			)
		);
	}

	/**
	 * The service asks whether this store started the connection with a
	 * proof: yes while that Connect is pending (its installation key signs
	 * the service's challenge), else 404.
	 *
	 * @param WP_REST_Request $request The request.
	 * @return WP_REST_Response|WP_Error
	 */
	public static function confirm_connection( $request ) {
		$answer = Sillage_Core::connection_answer(
			get_option( 'sillage_connect_secret', '' ),
			(int) get_option( 'sillage_connect_started', 0 ),
			time(),
			self::CONNECT_TTL,
			$request->get_param( 'proof' ),
			$request->get_param( 'challenge' ),
			get_option( 'sillage_installation_key', '' )
		);
		if ( null === $answer ) {
			return new WP_Error( 'sillage_no_connection', 'This store started no connection with this proof.', array( 'status' => 404 ) );
		}
		$response = new WP_REST_Response( $answer, 200 );
		$response->header( 'Cache-Control', 'no-store' );
		return $response;
	}

	/**
	 * The installation key, made the first time it is needed and kept until
	 * the plugin is deleted (Disconnect and deactivation keep it).
	 *
	 * @return string
	 */
	public static function installation_key() {
		$key = get_option( 'sillage_installation_key', '' );
		if ( ! Sillage_Core::is_installation_key( $key ) ) {
			$key = Sillage_Core::new_installation_key();
			update_option( 'sillage_installation_key', $key, false );
		}
		return $key;
	}

	/**
	 * WooCommerce → Sillage, and the claim handled before the page is drawn.
	 */
	public static function menu() {
		$hook = add_submenu_page(
			'woocommerce',
			__( 'Sillage scent quiz', 'sillage' ),
			__( 'Sillage', 'sillage' ),
			self::CAPABILITY,
			self::PAGE,
			array( __CLASS__, 'render' )
		);
		if ( $hook ) {
			add_action( 'load-' . $hook, array( __CLASS__, 'on_load' ) );
		}
	}

	/**
	 * A "Settings" link under the plugin's name on the Plugins screen.
	 *
	 * @param array $links The plugin's links.
	 * @return array
	 */
	public static function action_links( $links ) {
		array_unshift(
			$links,
			sprintf( '<a href="%s">%s</a>', esc_url( self::page_url() ), esc_html__( 'Settings', 'sillage' ) )
		);
		return $links;
	}

	/**
	 * Suggested text for the site's privacy policy (Settings → Privacy).
	 */
	public static function privacy_policy() {
		if ( ! function_exists( 'wp_add_privacy_policy_content' ) ) {
			return;
		}
		wp_add_privacy_policy_content(
			__( 'Sillage scent quiz', 'sillage' ),
			wp_kses_post(
				wpautop(
					__( 'This store uses Sillage to recommend perfumes through a short quiz. The quiz runs in your browser and sends your answers to the Sillage service to find the scents that suit you. When you place an order, its number, total and products are reported to Sillage so the store can see which recommendations helped. The store also shares its products and orders with Sillage, including the contact details in an order, so that recommendations stay in stock and purchases are counted.', 'sillage' )
				)
			)
		);
	}

	/**
	 * Back from the service: `sillage_connect` and `success` in the address.
	 * The claim is made here, before anything is printed, and the page is
	 * loaded again without them so that a reload does not claim twice.
	 */
	public static function on_load() {
		// phpcs:disable WordPress.Security.NonceVerification.Recommended -- the service builds this address; the connect secret binds it (see the class's comment).
		if ( ! isset( $_GET['sillage_connect'] ) ) {
			return;
		}
		if ( ! current_user_can( self::CAPABILITY ) ) {
			wp_die( esc_html__( 'You are not allowed to connect this store.', 'sillage' ), '', array( 'response' => 403 ) );
		}
		$success = isset( $_GET['success'] ) && '1' === sanitize_text_field( wp_unslash( $_GET['success'] ) );
		$token   = sanitize_text_field( wp_unslash( $_GET['sillage_connect'] ) );
		// phpcs:enable WordPress.Security.NonceVerification.Recommended

		if ( ! $success ) {
			delete_option( 'sillage_connect_secret' );
			delete_option( 'sillage_connect_started' );
			self::notice( 'warning', __( 'The store was not connected: access to the store was not approved. Press "Connect" to try again.', 'sillage' ) );
		} else {
			$result = self::claim( $token );
			if ( is_wp_error( $result ) ) {
				self::notice( 'error', $result->get_error_message() );
			} elseif ( true !== $result ) {
				self::notice( 'warning', $result );
			} else {
				self::notice( 'success', __( 'Connected. The quiz now appears on your store, and Sillage receives your products and orders.', 'sillage' ) );
			}
		}
		wp_safe_redirect( self::page_url() );
		exit;
	}

	/**
	 * Claims the connection the service holds for this store with the
	 * connect secret, saves what it answers and creates the webhooks.
	 *
	 * @param string $token The `sillage_connect` token.
	 * @return true|string|WP_Error True when connected; a warning when connected but the webhooks could not be made; an error otherwise.
	 */
	public static function claim( $token ) {
		if ( ! Sillage_Core::is_connect_token( $token ) ) {
			return new WP_Error( 'sillage_token', __( 'The address Sillage sent you back with is incomplete. Press "Connect" again.', 'sillage' ) );
		}
		$secret  = get_option( 'sillage_connect_secret', '' );
		$started = (int) get_option( 'sillage_connect_started', 0 );
		if ( ! Sillage_Core::is_secret( $secret ) || time() - $started > self::CONNECT_TTL ) {
			return new WP_Error( 'sillage_expired', __( 'This connection has expired or was already used. Press "Connect" again.', 'sillage' ) );
		}
		$service = self::service_url();
		if ( '' === $service ) {
			return new WP_Error( 'sillage_service', __( 'Enter the address of your Sillage service first.', 'sillage' ) );
		}

		// a public service is called only as a public address (wp_safe_remote_post refuses private ones);
		// a plain-http service, allowed on a development site only, is called as typed
		$post     = 0 === strpos( $service, 'https://' ) ? 'wp_safe_remote_post' : 'wp_remote_post';
		$response = $post(
			Sillage_Core::claim_url( $service ),
			array(
				'timeout'     => 20,
				'redirection' => 0,
				'headers'     => array(
					'Content-Type' => 'application/json',
					'Accept'       => 'application/json',
				),
				'body'        => wp_json_encode( Sillage_Core::claim_body( $token, $secret ) ),
				'data_format' => 'body',
			)
		);
		if ( is_wp_error( $response ) ) {
			return new WP_Error(
				'sillage_unreachable',
				/* translators: %s: the error, as WordPress reports it. */
				sprintf( __( 'The Sillage service could not be reached: %s', 'sillage' ), $response->get_error_message() )
			);
		}

		$answer = Sillage_Core::parse_claim_answer(
			wp_remote_retrieve_response_code( $response ),
			wp_remote_retrieve_body( $response ),
			$service
		);
		if ( ! $answer['ok'] ) {
			return new WP_Error( 'sillage_claim', self::claim_error( $answer ) );
		}

		// A store connecting again: the old webhooks go first (register_webhooks()).
		update_option( 'sillage_store_id', $answer['store_id'] );
		update_option( 'sillage_publishable_key', $answer['publishable_key'] );
		update_option( 'sillage_webhook_secret', $answer['webhook_secret'], false );
		update_option( 'sillage_webhook_url', $answer['webhook_url'], false );
		update_option( 'sillage_console_url', $answer['console_url'], false );
		delete_option( 'sillage_connect_secret' );
		delete_option( 'sillage_connect_started' );

		$webhooks = self::register_webhooks( $answer['webhook_url'], $answer['webhook_secret'] );
		if ( is_wp_error( $webhooks ) ) {
			return sprintf(
				/* translators: %s: why the webhooks could not be created. */
				__( 'Connected, but the webhooks that send your products and orders to Sillage could not be created: %s. Press "Connect again" to retry.', 'sillage' ),
				$webhooks->get_error_message()
			);
		}
		return true;
	}

	/**
	 * What the admin is told when the claim failed.
	 *
	 * @param array $answer Sillage_Core::parse_claim_answer()'s refusal.
	 * @return string
	 */
	private static function claim_error( $answer ) {
		if ( 'invalid' === $answer['reason'] ) {
			return sprintf(
				/* translators: %s: the field of the answer that was wrong. */
				__( 'The Sillage service answered, but its answer could not be used (%s). Check the service address, then press "Connect" again.', 'sillage' ),
				$answer['field']
			);
		}
		$message = '' !== $answer['error']
			? $answer['error']
			/* translators: %d: the HTTP status code. */
			: sprintf( __( 'The Sillage service refused the connection (HTTP %d).', 'sillage' ), $answer['status'] );
		if ( '' !== $answer['code'] ) {
			/* translators: 1: the service's message, 2: its error code. */
			$message = sprintf( __( '%1$s (code: %2$s)', 'sillage' ), $message, $answer['code'] );
		}
		return $message;
	}

	/**
	 * Creates the store's webhooks to the service with WooCommerce's own
	 * API, after deleting the ones an earlier connection made.
	 *
	 * @param string $delivery_url The service's webhook address for this store.
	 * @param string $secret       The secret WooCommerce signs each delivery with.
	 * @return true|WP_Error
	 */
	public static function register_webhooks( $delivery_url, $secret ) {
		if ( ! class_exists( 'WC_Webhook' ) ) {
			return new WP_Error( 'sillage_no_woocommerce', __( 'WooCommerce is not active', 'sillage' ) );
		}
		self::delete_webhooks();

		$ids = array();
		try {
			foreach ( Sillage_Core::WEBHOOK_TOPICS as $topic ) {
				$webhook = new WC_Webhook();
				$webhook->set_name( Sillage_Core::webhook_name( $topic ) );
				$webhook->set_topic( $topic );
				$webhook->set_delivery_url( $delivery_url );
				$webhook->set_secret( $secret );
				$webhook->set_api_version( 'wp_api_v3' );
				$webhook->set_status( 'active' );
				$webhook->set_user_id( get_current_user_id() );
				$id = (int) $webhook->save();
				if ( $id > 0 ) {
					$ids[] = $id;
				}
			}
		} catch ( Exception $e ) {
			update_option( 'sillage_webhook_ids', $ids, false );
			return new WP_Error( 'sillage_webhooks', $e->getMessage() );
		}
		update_option( 'sillage_webhook_ids', $ids, false );

		if ( count( $ids ) !== count( Sillage_Core::WEBHOOK_TOPICS ) ) {
			return new WP_Error( 'sillage_webhooks', __( 'WooCommerce did not save every webhook', 'sillage' ) );
		}
		return true;
	}

	/**
	 * Deletes the webhooks the plugin made (their ids are in `sillage_webhook_ids`).
	 */
	public static function delete_webhooks() {
		$ids = get_option( 'sillage_webhook_ids', array() );
		if ( function_exists( 'wc_get_webhook' ) && is_array( $ids ) ) {
			foreach ( $ids as $id ) {
				$webhook = wc_get_webhook( (int) $id );
				if ( $webhook ) {
					$webhook->delete( true );
				}
			}
		}
		delete_option( 'sillage_webhook_ids' );
	}

	/**
	 * Leaves the service: the webhooks are deleted, the service is told
	 * (a message signed as WooCommerce signs its webhooks, to the same
	 * address), and the store's id, key and secrets are forgotten. The
	 * service's address stays.
	 *
	 * @param string $reason 'disconnected' or 'deactivated'.
	 * @return true|WP_Error An error when the service could not be told (the store is disconnected here all the same).
	 */
	public static function disconnect( $reason ) {
		$store_id = (string) get_option( 'sillage_store_id', '' );
		$url      = (string) get_option( 'sillage_webhook_url', '' );
		$secret   = (string) get_option( 'sillage_webhook_secret', '' );

		self::delete_webhooks();

		$result = true;
		if ( '' !== $store_id && '' !== $url && '' !== $secret ) {
			$body     = Sillage_Core::disconnect_body( $store_id, $reason );
			$post     = 0 === strpos( $url, 'https://' ) ? 'wp_safe_remote_post' : 'wp_remote_post';
			$response = $post(
				$url,
				array(
					'timeout'     => 10,
					'redirection' => 0,
					'headers'     => Sillage_Core::disconnect_headers( $body, $secret, home_url( '/' ) ),
					'body'        => $body,
					'data_format' => 'body',
				)
			);
			if ( is_wp_error( $response ) ) {
				$result = $response;
			} else {
				$status = (int) wp_remote_retrieve_response_code( $response );
				if ( $status < 200 || $status >= 300 ) {
					/* translators: %d: the HTTP status code. */
					$result = new WP_Error( 'sillage_disconnect', sprintf( __( 'HTTP %d', 'sillage' ), $status ) );
				}
			}
		}

		// everything but the service's address, the installation key (and the webhook ids, gone with the webhooks)
		foreach ( array_diff( self::OPTIONS, self::KEPT_ON_DISCONNECT ) as $option ) {
			delete_option( $option );
		}
		return $result;
	}

	/**
	 * The plugin is deactivated: each site connected leaves the service
	 * (every site of the network when it was network-activated).
	 *
	 * @param bool $network_wide Whether it is deactivated for the whole network.
	 */
	public static function deactivate( $network_wide = false ) {
		if ( is_multisite() && $network_wide ) {
			foreach ( get_sites(
				array(
					'fields' => 'ids',
					'number' => 0,
				)
			) as $site_id ) {
				switch_to_blog( (int) $site_id );
				self::deactivate_site();
				restore_current_blog();
			}
			return;
		}
		self::deactivate_site();
	}

	/**
	 * One site's part of deactivate().
	 */
	private static function deactivate_site() {
		if ( self::is_connected() ) {
			self::disconnect( 'deactivated' );
		} else {
			self::delete_webhooks();
		}
	}

	/**
	 * Saves the service's address (refused while connected: disconnect first).
	 */
	public static function handle_save() {
		self::guard( 'sillage_save' );
		if ( self::is_connected() ) {
			self::notice( 'error', __( 'Disconnect the store before changing the address of the Sillage service.', 'sillage' ) );
			self::back();
		}
		$typed = isset( $_POST['sillage_service_url'] ) ? sanitize_text_field( wp_unslash( $_POST['sillage_service_url'] ) ) : '';
		$url   = Sillage_Core::normalize_service_url( $typed, self::allow_http() );
		if ( '' !== trim( $typed ) && '' === $url ) {
			self::notice( 'error', __( 'This is not a valid address. Enter the full https address of your Sillage service, for example https://sillage.example', 'sillage' ) );
			self::back();
		}
		update_option( 'sillage_service_url', $url );
		self::notice( 'success', __( 'Saved.', 'sillage' ) );
		self::back();
	}

	/**
	 * Connect: a new connect secret is saved (and the installation key made,
	 * the first time), and the admin's browser goes to the service with its
	 * SHA-256 (the service asks the store to confirm it, then sends the
	 * browser to the store's own WooCommerce key screen, read-only).
	 */
	public static function handle_connect() {
		self::guard( 'sillage_connect' );
		$service = self::service_url();
		if ( '' === $service ) {
			self::notice( 'error', __( 'Enter the address of your Sillage service first.', 'sillage' ) );
			self::back();
		}
		self::installation_key();
		$secret = Sillage_Core::new_secret();
		update_option( 'sillage_connect_secret', $secret, false );
		update_option( 'sillage_connect_started', time(), false );

		$user = wp_get_current_user();
		$url  = Sillage_Core::connect_url( $service, home_url(), $secret, $user->user_email, admin_url( 'admin.php' ) );

		$host = wp_parse_url( $service, PHP_URL_HOST );
		add_filter(
			'allowed_redirect_hosts',
			static function ( $hosts ) use ( $host ) {
				$hosts[] = $host;
				return $hosts;
			}
		);
		wp_safe_redirect( $url );
		exit;
	}

	/**
	 * Disconnect, from the settings page.
	 */
	public static function handle_disconnect() {
		self::guard( 'sillage_disconnect' );
		$result = self::disconnect( 'disconnected' );
		if ( is_wp_error( $result ) ) {
			self::notice(
				'warning',
				sprintf(
					/* translators: %s: why the service could not be told. */
					__( 'Disconnected. The quiz no longer appears on your store, but the Sillage service could not be told (%s): remove the store from your Sillage console too.', 'sillage' ),
					$result->get_error_message()
				)
			);
		} else {
			self::notice( 'success', __( 'Disconnected. The quiz no longer appears on your store.', 'sillage' ) );
		}
		self::back();
	}

	/**
	 * The settings page.
	 */
	public static function render() {
		if ( ! current_user_can( self::CAPABILITY ) ) {
			return;
		}
		$service   = self::service_url();
		$connected = self::is_connected();
		$notice    = get_transient( self::notice_key() );
		if ( $notice ) {
			delete_transient( self::notice_key() );
		}
		?>
		<div class="wrap">
			<h1><?php esc_html_e( 'Sillage scent quiz', 'sillage' ); ?></h1>

			<?php if ( is_array( $notice ) && isset( $notice['type'], $notice['message'] ) ) : ?>
				<div class="notice notice-<?php echo esc_attr( $notice['type'] ); ?> is-dismissible"><p><?php echo esc_html( $notice['message'] ); ?></p></div>
			<?php endif; ?>

			<p><?php esc_html_e( 'Sillage adds a short perfume quiz to your store: your shoppers answer a few questions and get the perfumes from your catalogue that suit them, in Arabic or English.', 'sillage' ); ?></p>

			<h2><?php esc_html_e( '1. Your Sillage service', 'sillage' ); ?></h2>
			<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>">
				<input type="hidden" name="action" value="sillage_save" />
				<?php wp_nonce_field( 'sillage_save' ); ?>
				<table class="form-table" role="presentation">
					<tr>
						<th scope="row"><label for="sillage_service_url"><?php esc_html_e( 'Service address', 'sillage' ); ?></label></th>
						<td>
							<input type="url" class="regular-text code" dir="ltr" id="sillage_service_url" name="sillage_service_url" value="<?php echo esc_attr( $service ); ?>" placeholder="https://sillage.example" <?php disabled( $connected ); ?> />
							<p class="description">
								<?php
								echo esc_html(
									$connected
										? __( 'To change it, disconnect the store first.', 'sillage' )
										: __( 'The address you were given with your Sillage account.', 'sillage' )
								);
								?>
							</p>
						</td>
					</tr>
				</table>
				<?php
				if ( ! $connected ) {
					submit_button( __( 'Save', 'sillage' ), 'secondary' );
				}
				?>
			</form>

			<h2><?php esc_html_e( '2. Connect your store', 'sillage' ); ?></h2>
			<?php if ( $connected ) : ?>
				<?php self::render_connected(); ?>
			<?php else : ?>
				<p><?php esc_html_e( 'When you press "Connect", you go to Sillage, then back to your own store, where WooCommerce asks you to give Sillage read-only access. Sillage can read your products and orders; it cannot change anything in your store.', 'sillage' ); ?></p>
				<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>">
					<input type="hidden" name="action" value="sillage_connect" />
					<?php wp_nonce_field( 'sillage_connect' ); ?>
					<?php submit_button( __( 'Connect', 'sillage' ), 'primary', 'submit', false, '' === $service ? array( 'disabled' => 'disabled' ) : array() ); ?>
				</form>
				<?php if ( '' === $service ) : ?>
					<p class="description"><?php esc_html_e( 'Enter and save the service address first.', 'sillage' ); ?></p>
				<?php endif; ?>
			<?php endif; ?>
		</div>
		<?php
	}

	/**
	 * The page's second part once the store is connected.
	 */
	private static function render_connected() {
		$console  = (string) get_option( 'sillage_console_url', '' );
		$inactive = self::inactive_webhooks();
		?>
		<p><strong><?php esc_html_e( 'Connected', 'sillage' ); ?></strong> &mdash;
			<?php
			/* translators: %s: the store's id at Sillage. */
			echo esc_html( sprintf( __( 'store %s', 'sillage' ), (string) get_option( 'sillage_store_id', '' ) ) );
			?>
		</p>
		<?php if ( '' !== $console ) : ?>
			<p><a class="button button-primary" href="<?php echo esc_url( $console ); ?>" target="_blank" rel="noopener noreferrer"><?php esc_html_e( 'Open your Sillage console', 'sillage' ); ?></a></p>
		<?php endif; ?>
		<?php if ( $inactive > 0 ) : ?>
			<div class="notice notice-warning inline"><p><?php esc_html_e( 'Some of the webhooks that send your products and orders to Sillage are missing or paused. Press "Connect again" to create them again.', 'sillage' ); ?></p></div>
		<?php endif; ?>
		<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>" style="display:inline-block;margin-inline-end:8px">
			<input type="hidden" name="action" value="sillage_connect" />
			<?php wp_nonce_field( 'sillage_connect' ); ?>
			<?php submit_button( __( 'Connect again', 'sillage' ), 'secondary', 'submit', false ); ?>
		</form>
		<form method="post" action="<?php echo esc_url( admin_url( 'admin-post.php' ) ); ?>" style="display:inline-block" onsubmit="return window.confirm(<?php echo esc_attr( wp_json_encode( __( 'Disconnect the store from Sillage? The quiz will no longer appear on your store.', 'sillage' ) ) ); ?>);">
			<input type="hidden" name="action" value="sillage_disconnect" />
			<?php wp_nonce_field( 'sillage_disconnect' ); ?>
			<?php submit_button( __( 'Disconnect', 'sillage' ), 'delete', 'submit', false ); ?>
		</form>
		<?php
	}

	/**
	 * How many of the plugin's webhooks are gone or not active (WooCommerce
	 * disables one after repeated failed deliveries).
	 *
	 * @return int
	 */
	private static function inactive_webhooks() {
		if ( ! function_exists( 'wc_get_webhook' ) ) {
			return 0;
		}
		$ids    = get_option( 'sillage_webhook_ids', array() );
		$ids    = is_array( $ids ) ? $ids : array();
		$active = 0;
		foreach ( $ids as $id ) {
			$webhook = wc_get_webhook( (int) $id );
			if ( $webhook && 'active' === $webhook->get_status() ) {
				++$active;
			}
		}
		return max( 0, count( Sillage_Core::WEBHOOK_TOPICS ) - $active );
	}

	/**
	 * Whether the store is connected: a service address, a store id and a key.
	 *
	 * @return bool
	 */
	public static function is_connected() {
		return '' !== self::service_url()
			&& '' !== (string) get_option( 'sillage_store_id', '' )
			&& '' !== (string) get_option( 'sillage_publishable_key', '' );
	}

	/**
	 * The service's base address as saved ('' when none).
	 *
	 * @return string
	 */
	public static function service_url() {
		return Sillage_Core::normalize_service_url( get_option( 'sillage_service_url', '' ), self::allow_http() );
	}

	/**
	 * Whether a plain http service address is accepted: on local and
	 * development sites (wp_get_environment_type()), or when the
	 * `sillage_allow_http_service` filter says so. Loopback addresses always are.
	 *
	 * @return bool
	 */
	public static function allow_http() {
		$environment = function_exists( 'wp_get_environment_type' ) ? wp_get_environment_type() : 'production';
		/**
		 * Whether the Sillage service may be reached over plain http.
		 *
		 * @param bool $allow True on local and development sites.
		 */
		return (bool) apply_filters( 'sillage_allow_http_service', in_array( $environment, array( 'local', 'development' ), true ) );
	}

	/**
	 * The settings page's address.
	 *
	 * @return string
	 */
	public static function page_url() {
		return admin_url( 'admin.php?page=' . self::PAGE );
	}

	/**
	 * Stops unless the user may act and the form's nonce is good.
	 *
	 * @param string $action The nonce's action.
	 */
	private static function guard( $action ) {
		if ( ! current_user_can( self::CAPABILITY ) ) {
			wp_die( esc_html__( 'You are not allowed to change the Sillage settings.', 'sillage' ), '', array( 'response' => 403 ) );
		}
		check_admin_referer( $action );
	}

	/**
	 * Keeps a message for the settings page's next load.
	 *
	 * @param string $type    success, warning or error.
	 * @param string $message The message (escaped when printed).
	 */
	private static function notice( $type, $message ) {
		set_transient(
			self::notice_key(),
			array(
				'type'    => $type,
				'message' => $message,
			),
			5 * MINUTE_IN_SECONDS
		);
	}

	/**
	 * The transient holding the current user's message.
	 *
	 * @return string
	 */
	private static function notice_key() {
		return 'sillage_notice_' . get_current_user_id();
	}

	/**
	 * Back to the settings page.
	 */
	private static function back() {
		wp_safe_redirect( self::page_url() );
		exit;
	}
}
