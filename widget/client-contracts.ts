/**
 * The data types of the headless client, each the static type of a schema the
 * server validates and answers with (contracts/, events/validate.ts). Types
 * only: nothing here reaches the bundle.
 *
 * The client package's declarations (packages/client, `npm run build:client`)
 * are these types written out in full, so a storefront that installs the
 * package gets the server's own shapes without TypeBox; tests/client-package
 * holds each written-out type equal to its schema's.
 */
import type { Static } from '@sinclair/typebox';
import type { ErrorCode } from '../contracts/errors.ts';
import type {
  AlsoExploreSchema,
  CatalogReadinessSchema,
  EventResponseSchema,
  LookupRequestSchema,
  LookupResponseSchema,
  MerchantProductInputSchema,
  PerfumeResultSchema,
  QualitySchema,
  QuizSchema,
  RecommendationSchema,
  ScoreRequestDocument,
  ScoreResponseSchema,
  VerifyResponseSchema,
  WidgetKeySchema,
} from '../contracts/widget.ts';
import type { EVENT_SCHEMAS, EventType as ServerEventType } from '../events/validate.ts';

/** The shopper's answers: families, accord ratings, season, occasion. */
export type Quiz = Static<typeof QuizSchema>;
/** A merchant's product as a feed or an inline catalog sends it. */
export type MerchantProductInput = Static<typeof MerchantProductInputSchema>;
/** The body of score (the client adds `api_key`). */
export type ScoreRequest = Static<typeof ScoreRequestDocument>;
/** What a product's scent profile is known from. */
export type Quality = Static<typeof QualitySchema>;
/** A merchant's product, scored for the shopper. */
export type Recommendation = Static<typeof RecommendationSchema>;
/** A product beside the recommendations, with why it is shown. */
export type AlsoExplore = Static<typeof AlsoExploreSchema>;
/** The answer of score. */
export type ScoreResponse = Static<typeof ScoreResponseSchema>;
/** How much of the merchant's synced catalog can be recommended. */
export type CatalogReadiness = Static<typeof CatalogReadinessSchema>;
/** A publishable widget key, as verify describes it. */
export type WidgetKey = Static<typeof WidgetKeySchema>;
/** The answer of verify. */
export type VerifyResponse = Static<typeof VerifyResponseSchema>;
/** The body of lookup (the client adds `api_key`). */
export type LookupRequest = Static<typeof LookupRequestSchema>;
/** A perfume of the service's catalog. */
export type PerfumeResult = Static<typeof PerfumeResultSchema>;
/** The answer of lookup. */
export type LookupResponse = Static<typeof LookupResponseSchema>;
/** The answer of event: events stored, and events already stored before. */
export type EventAck = Static<typeof EventResponseSchema>;
/** Every event type the service records. */
export type EventType = ServerEventType;
/** A code the service answers a refusal with. */
export type ServerErrorCode = ErrorCode;

type Schemas = typeof EVENT_SCHEMAS;
/** one object type of an intersection's fields (the `infer` keeps the result free of this alias's name) */
type Flat<T> = T extends infer O ? { [K in keyof O]: O[K] } : never;
/** One event as the client reports it; `event_id`, `occurred_at` and `session_id` are filled in when absent. */
export type WidgetEvent = { [T in EventType]: Flat<{ type: T } & Omit<Static<Schemas[T]>, 'type'>> }[EventType];
/** One event of a type, with the fields that type defines. */
export type EventOf<T extends EventType> = Extract<WidgetEvent, { type: T }>;
/** An order, as `trackPurchase` reports it for the client's session. */
export type PurchaseInput = Omit<EventOf<'purchase_completed'>, 'type' | 'event_id' | 'occurred_at' | 'session_id'>;
