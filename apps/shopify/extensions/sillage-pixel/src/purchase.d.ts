/** Types of purchase.js (plain JavaScript, so that Shopify CLI bundles it as it is). */

export declare const SESSION_TTL_MS: number;
export declare const MAX_ITEMS: number;
export declare const MAX_AMOUNT: number;
export declare const MAX_QUANTITY: number;

export interface PurchaseItem {
  merchant_product_id: string;
  quantity: number;
  price: number;
}

export interface PurchaseEvent {
  type: 'purchase_completed';
  event_id: string;
  occurred_at?: string;
  session_id?: string;
  order_id: string;
  total: number;
  currency: string;
  items: PurchaseItem[];
}

export interface PurchaseBody {
  api_key: string;
  events: [PurchaseEvent];
}

export declare function shopifyId(v: unknown): string | null;
export declare function eventUrl(settings: unknown): string | null;
export declare function sessionStorageName(key: unknown): string | null;
export declare function storedSessionId(stored: unknown, now: number): string | null;
export declare function purchaseEvent(
  checkout: unknown,
  settings: unknown,
  storedSession: unknown,
  now: number | Date,
): PurchaseBody | null;
