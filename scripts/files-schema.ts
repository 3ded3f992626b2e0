// Writes docs/schema/flagstaff-files.schema.json from the request-body schemas (run after changing
// them; test/flags-as-code/schema.test.ts fails while the committed file differs).
import { writeFileSync } from 'node:fs';
import { projectFilesSchema } from '../src/domain/schemas/project-files.ts';

writeFileSync(
  new URL('../docs/schema/flagstaff-files.schema.json', import.meta.url),
  `${JSON.stringify(projectFilesSchema(), null, 2)}\n`,
);
