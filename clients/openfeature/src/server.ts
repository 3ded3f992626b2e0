// @flagstaff/openfeature/server: for Node, with @openfeature/server-sdk.
export type { TrackingStats } from './event-sender.ts';
export { FlagstaffServerProvider, type FlagstaffServerProviderOptions } from './flagstaff-server-provider.ts';
export type { TrackingHandle } from './tracking.ts';
export type { TrackingLogger, TrackingOptions } from './tracking-options.ts';
