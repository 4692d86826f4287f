export * from './activity.ts';
export * from './catalog.ts';
export * from './console.ts';
export * from './feeds.ts';
export * from './learning.ts';
export * from './merchants.ts';
export * from './platforms.ts';
