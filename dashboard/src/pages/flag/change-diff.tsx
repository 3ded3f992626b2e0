import type { Flag } from '../../api.ts';
import { TableHead } from '../../kit/resource-table.tsx';
import { patchLines } from './patch-words.ts';

/** What a patch would change in one environment of the flag, as a small table. */
export function ChangeDiff({
  flag,
  environment,
  patch,
}: {
  flag: Flag | undefined;
  environment: string;
  patch: Readonly<Record<string, unknown>>;
}) {
  const lines = patchLines(patch, flag as unknown as Record<string, unknown> | undefined, environment);
  return (
    <table className="diff">
      <TableHead headers={['Field', 'Now', 'Would be']} />
      <tbody>
        {lines.map((line) => (
          <tr key={line.field}>
            <th scope="row">{line.field}</th>
            <td>
              <code>{line.now}</code>
            </td>
            <td>
              <code>{line.next}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
