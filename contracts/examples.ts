/**
 * A request and an answer of each widget operation, as the document shows
 * them (tests/openapi.test.ts sends each request, with a real key, and checks
 * each answer against its schema).
 */
const KEY = 'pk_test_Ib3kq1yqCk1kGm6B9rX0aT4c9Zr2';
const MERCHANT = { id: '54aa86ce-4322-4322-b8a0-c32ced087fc8', name: 'Oud House', slug: 'oud-house' };
const SESSION = '01a21ad8-1703-718b-9980-ca41e26ce7e2';

export const VERIFY_EXAMPLE = {
  request: { api_key: KEY },
  response: {
    valid: true,
    merchant: MERCHANT,
    test_mode: true,
    key: {
      id: '0fad223a-1389-4a9f-b793-1ea7e8d00e92',
      prefix: 'pk_test_Ib3k',
      mode: 'test',
      allowed_origins: ['https://oudhouse.example'],
    },
    catalog: {
      total: 240,
      matched: 198,
      partial: 31,
      unmatched: 11,
      pending: 0,
      without_profile: 12,
      ready: true,
      last_synced_at: '2026-11-20T08:00:00.000Z',
    },
    leads: { email_picks: false },
  },
};

export const LOOKUP_EXAMPLE = {
  request: { api_key: KEY, query: 'khamrah', limit: 1 },
  response: {
    results: [
      {
        sillage_perfume_id: 'lattafa-khamrah-edp',
        name: 'Khamrah',
        name_ar: 'خمرة',
        house: 'Lattafa',
        house_ar: 'لطافة',
        concentration: 'edp',
        year: 2022,
        gender: 'unisex',
        families: ['amber', 'gourmand', 'spicy'],
        accords: [
          { name: 'warm spicy', weight: 1 },
          { name: 'sweet', weight: 0.88 },
          { name: 'vanilla', weight: 0.72 },
        ],
        notes: {
          top: ['cinnamon', 'nutmeg', 'bergamot'],
          heart: ['dates', 'praline', 'tuberose'],
          base: ['vanilla', 'tonka bean', 'myrrh', 'benzoin'],
        },
        seasons: ['autumn', 'winter'],
        times: ['night'],
        occasions: ['evening', 'date-night', 'gathering', 'eid'],
        image_url: null,
        score: 0.957,
      },
    ],
    not_found: [],
    catalog_version: 1,
  },
};

/** a product of the score example, shown as a recommendation and as a layering pair's spray */
const SKU_42 = {
  merchant_product_id: 'SKU-42',
  sillage_perfume_id: 'lattafa-ameer-al-oudh-edp',
  name: 'Ameer Al Oudh Intense Oud EDP 100ml',
  house: 'Lattafa',
  match_score: 80,
  fit: 'strong',
  match_accords: ['oud', 'amber', 'woody'],
  quality: 'unreviewed',
  gender: 'men',
  product_kind: 'spray',
  alcohol_free: false,
  price: 149,
  currency: 'SAR',
  product_url: 'https://oudhouse.example/p/sku-42',
  image_url: null,
  heat: { lasting: 'long', projection: 'strong', estimated: true, reasons: ['concentration_edp', 'heavy_base'] },
};

export const SCORE_EXAMPLE = {
  request: {
    api_key: KEY,
    locale: 'en',
    limit: 1,
    quiz: {
      families: ['oud', 'amber'],
      accord_ratings: { oud: 'love', citrus: 'avoid' },
      season: 'winter',
      occasion: 'evening',
      lasts_in_heat: true,
      layering: true,
    },
  },
  response: {
    session_id: SESSION,
    merchant: MERCHANT,
    recommendations: [SKU_42],
    also_explore: [
      {
        merchant_product_id: 'SKU-7',
        sillage_perfume_id: null,
        name: 'Dehn Al Oud Cambodi 3ml',
        house: 'Oud House',
        match_score: 56,
        fit: 'weak',
        match_accords: ['oud'],
        quality: 'partial',
        gender: null,
        product_kind: 'oil',
        alcohol_free: true,
        price: 450,
        currency: 'SAR',
        product_url: 'https://oudhouse.example/p/sku-7',
        image_url: null,
        heat: { lasting: 'long', projection: 'soft', estimated: true, reasons: ['oil_on_skin', 'heavy_base'] },
        reason: 'weaker_fit',
      },
    ],
    taste_summary: {
      dominant_families: ['oud', 'amber'],
      top_accords: ['oud'],
      avoid_accords: ['citrus'],
      inferred: { families: ['spicy'], accords: ['amber', 'woody', 'warm spicy', 'balsamic', 'resinous'] },
    },
    layering: [
      {
        base: {
          merchant_product_id: 'SKU-9',
          sillage_perfume_id: null,
          name: 'Dehn Al Oud Malaki 6ml',
          house: 'Oud House',
          match_score: 74,
          fit: 'good',
          match_accords: ['oud', 'woody'],
          quality: 'partial',
          gender: null,
          product_kind: 'oil',
          alcohol_free: true,
          price: 380,
          currency: 'SAR',
          product_url: 'https://oudhouse.example/p/sku-9',
          image_url: null,
          heat: { lasting: 'long', projection: 'soft', estimated: true, reasons: ['oil_on_skin', 'heavy_base'] },
        },
        top: SKU_42,
        match_score: 77,
        shared_accords: ['oud', 'woody'],
        steps: [
          { merchant_product_id: 'SKU-9', how: 'oil_on_skin' },
          { merchant_product_id: 'SKU-42', how: 'spray_over' },
        ],
      },
    ],
    powered_by: {
      label: 'Powered by Sillage',
      url: `https://sillage.app/powered-by?ref=widget&merchant=oud-house&session=${SESSION}`,
      logo_svg: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" role="img" aria-label="Sillage"></svg>',
    },
    test_mode: true,
  },
};

export const EVENT_EXAMPLE = {
  request: {
    api_key: KEY,
    session_id: SESSION,
    events: [
      { type: 'results_viewed', data: { count: 1 } },
      { type: 'recommendation_clicked', merchant_product_id: 'SKU-42', position: 1 },
    ],
  },
  response: { accepted: 2, duplicates: 0 },
};
