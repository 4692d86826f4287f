/**
 * Limits of the widget interface's extensions that pure modules check too
 * (the quiz's validation, the engine): no imports, so the widget's bundle can
 * share them without the schemas.
 */

/** At most this many loved, and this many disliked, perfumes in a quiz. */
export const MAX_REFERENCE_PERFUMES = 5;
