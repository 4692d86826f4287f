export * from './activity.ts';
export * from './catalog.ts';
export * from './merchants.ts';
