/** SQL for rate-limit windows shared by the nodes of one database (portable Kysely). */
import type { Kysely } from 'kysely';
import type { Database } from './tables.js';

/** Hits of one key in one fixed window (`windowStart` in epoch ms). */
export interface RateWindowHits {
  readonly key: string;
  readonly windowStart: number;
  readonly hits: number;
}

/** The rate-limit area of the metadata store (`tx.rates`). */
export class RateQueries {
  constructor(private readonly db: Kysely<Database>) {}

  /** Adds `hits` to each window and returns each window's total over every node. */
  async add(windows: readonly RateWindowHits[]): Promise<RateWindowHits[]> {
    const totals: RateWindowHits[] = [];
    for (const w of windows) {
      const row = await this.db
        .insertInto('rate_windows')
        .values({ key: w.key, window_start: w.windowStart, hits: w.hits })
        .onConflict((oc) =>
          oc
            .columns(['key', 'window_start'])
            .doUpdateSet((eb) => ({ hits: eb('rate_windows.hits', '+', eb.ref('excluded.hits')) })),
        )
        .returning('hits')
        .executeTakeFirstOrThrow();
      totals.push({ ...w, hits: Number(row.hits) });
    }
    return totals;
  }

  /** Forgets windows that ended before `before` (epoch ms). */
  async prune(before: number): Promise<void> {
    await this.db.deleteFrom('rate_windows').where('window_start', '<', before).execute();
  }
}
