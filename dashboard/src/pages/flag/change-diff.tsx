import type { ChangeRequest, Flag } from '../../api.ts';
import { TableHead } from '../../kit/resource-table.tsx';
import { changeLines, patchLines } from './patch-words.ts';

/**
 * What a change request would change, as a small table: only what its author changed, with the
 * value it was based on (the gate's `changes`); for a request that has none recorded, its patch
 * against the flag as it is now.
 */
export function ChangeDiff({ request, flag }: { request: ChangeRequest; flag: Flag | undefined }) {
  // Requests made before changes were recorded (`legacy`) have none: their patch is all there is.
  const recorded = request.changes.length > 0;
  const lines = recorded
    ? changeLines(request.changes, flag?.key)
    : patchLines(request.patch, flag as unknown as Record<string, unknown> | undefined, request.environment);
  if (lines.length === 0) return null;
  const [before, after] = [recorded ? 'Before' : 'Now', 'Would be'];
  return (
    // Fixed columns whose text wraps; on a phone each field stacks its values under their labels.
    <div className="diff-box">
      <table className="diff-table stacks-on-phone">
        <caption className="visually-hidden">What it changes</caption>
        <TableHead headers={['Field', before, after]} />
        <tbody>
          {lines.map((line) => (
            <tr key={line.field}>
              <th scope="row">{line.field}</th>
              <td data-label={before}>
                <code>{line.now}</code>
              </td>
              <td data-label={after}>
                <code>{line.next}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
