/**
 * A unified diff shown side by side: the old version's lines on the left, the new one's on the
 * right, with line numbers; removed and added lines of a hunk are paired row by row. Each cell
 * keeps its − or + sign (and a hidden "removed"/"added" word), so colour is never the only cue.
 */

export interface SplitCell {
  readonly n: number;
  readonly text: string;
  readonly kind: 'ctx' | 'del' | 'add';
}

export type SplitRow =
  | { readonly hunk: string }
  | { readonly left: SplitCell | null; readonly right: SplitCell | null };

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/** The rows of the side-by-side view of a unified diff (file headers dropped). */
export function splitRows(diff: string): SplitRow[] {
  const rows: SplitRow[] = [];
  let oldN = 0;
  let newN = 0;
  let dels: SplitCell[] = [];
  let adds: SplitCell[] = [];
  const flush = () => {
    for (let i = 0; i < Math.max(dels.length, adds.length); i++) {
      rows.push({ left: dels[i] ?? null, right: adds[i] ?? null });
    }
    dels = [];
    adds = [];
  };
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++') || line.startsWith('---')) continue;
    const hunk = HUNK.exec(line);
    if (hunk) {
      flush();
      oldN = Number(hunk[1]);
      newN = Number(hunk[2]);
      rows.push({ hunk: line });
    } else if (line.startsWith('-')) {
      dels.push({ n: oldN++, text: line.slice(1), kind: 'del' });
    } else if (line.startsWith('+')) {
      adds.push({ n: newN++, text: line.slice(1), kind: 'add' });
    } else if (line.startsWith(' ')) {
      flush();
      const text = line.slice(1);
      rows.push({
        left: { n: oldN++, text, kind: 'ctx' },
        right: { n: newN++, text, kind: 'ctx' },
      });
    }
  }
  flush();
  return rows;
}

const SIGN = { ctx: ' ', del: '−', add: '+' } as const;
const WORD = { ctx: '', del: 'removed: ', add: 'added: ' } as const;

function Cells({ cell }: { readonly cell: SplitCell | null }) {
  if (cell === null) {
    return (
      <>
        <td class="ln" />
        <td class="empty" />
      </>
    );
  }
  return (
    <>
      <td class="ln">{cell.n}</td>
      <td class={cell.kind}>
        <span aria-hidden="true">{SIGN[cell.kind]}</span>
        {cell.kind !== 'ctx' && <span class="visually-hidden">{WORD[cell.kind]}</span>}
        {cell.text}
      </td>
    </>
  );
}

export function SplitDiffView({
  diff,
  from,
  to,
}: {
  readonly diff: string;
  readonly from: number | null;
  readonly to: number;
}) {
  const rows = splitRows(diff);
  return (
    <section class="scroll" aria-label="Side-by-side diff" tabindex={0}>
      <table class="split">
        <caption class="visually-hidden">
          Version {from ?? 'none'} on the left, version {to} on the right
        </caption>
        <thead>
          <tr>
            <th scope="col" class="ln">
              <span class="visually-hidden">Old line</span>
            </th>
            <th scope="col">Version {from ?? 'none'}</th>
            <th scope="col" class="ln">
              <span class="visually-hidden">New line</span>
            </th>
            <th scope="col">Version {to}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) =>
            'hunk' in row ? (
              <tr class="hunk">
                <td colspan={4}>{row.hunk}</td>
              </tr>
            ) : (
              <tr>
                <Cells cell={row.left} />
                <Cells cell={row.right} />
              </tr>
            ),
          )}
        </tbody>
      </table>
    </section>
  );
}
