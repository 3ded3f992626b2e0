// @flagstaff/openfeature/web: for browsers, with @openfeature/web-sdk.
export type { TrackingStats } from './event-sender.ts';
export { FlagstaffWebProvider, type FlagstaffWebProviderOptions } from './flagstaff-web-provider.ts';
export type { TrackingHandle } from './tracking.ts';
export type { TrackingLogger, TrackingOptions } from './tracking-options.ts';
