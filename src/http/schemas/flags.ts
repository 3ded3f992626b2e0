// The request bodies and the answers are the domain's wire contract, so the services take their
// static types (decision 1053) and the dashboard and the CLI read them (decision 1870).

export { FlagBatchResultSchema, FlagBatchSchema } from '../../domain/schemas/flag-batch.ts';
export {
  CreateFlagSchema,
  FlagEnvironmentPatchSchema,
  FlagTypeSchema,
  PatchFlagSchema,
  VariantSchema,
} from '../../domain/schemas/flag-input.ts';
export { FlagSchema, FlagSummarySchema } from '../../domain/schemas/flag-schema.ts';
