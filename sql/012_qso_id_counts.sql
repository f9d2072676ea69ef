-- Exact totals of id-bounded lists (since_id, every ADIF page) without counting the rest of the
-- log (docs/api-v2/qso.md, "Totals"). A page that follows a log by id asks how many QSOs lie
-- between its since_id and its commit-safe cut; counting them made paging a whole log O(N²).
-- Writers now also append, in the same statement trigger as qso_counts, how many QSOs they added
-- or removed per block of 4096 consecutive ids (station_id, operator, id / 4096). A reader sums
-- the whole blocks between its bounds (a few hundred rows) and counts QSOs only in the two
-- partial blocks at its ends (at most 4096 ids each). Same rules as qso_counts: rows only
-- appended by writers, folded by the compaction, summed within the reader's snapshot.
CREATE TABLE qso_id_counts (
  station_id integer NOT NULL,
  operator   text,
  block      bigint NOT NULL,
  n          bigint NOT NULL,
  folded     boolean NOT NULL DEFAULT false
);
CREATE INDEX qso_id_counts_station_block ON qso_id_counts (station_id, block);
CREATE INDEX qso_id_counts_unfolded ON qso_id_counts (station_id) WHERE NOT folded;

CREATE OR REPLACE FUNCTION qso_counts_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  parts text;
  blocks text;
BEGIN
  parts := CASE TG_OP
    WHEN 'INSERT' THEN qso_counts_bucket_sql('new_rows', '1')
    WHEN 'DELETE' THEN qso_counts_bucket_sql('old_rows', '-1')
    ELSE qso_counts_bucket_sql('new_rows', '1') || ' UNION ALL ' || qso_counts_bucket_sql('old_rows', '-1')
  END;
  blocks := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT station_id, operator, id / 4096, 1 FROM new_rows'
    WHEN 'DELETE' THEN 'SELECT station_id, operator, id / 4096, -1 FROM old_rows'
    ELSE 'SELECT station_id, operator, id / 4096, 1 FROM new_rows UNION ALL SELECT station_id, operator, id / 4096, -1 FROM old_rows'
  END;
  -- An update that moves no QSO between buckets (most do not) adds nothing.
  EXECUTE 'INSERT INTO qso_counts (station_id, operator, band, mode, submode, prop_mode, qsl_rcvd, lotw_qsl_rcvd,
             eqsl_qsl_rcvd, qrzcom_qso_download_status, clublog_qso_download_status, n)
           SELECT station_id, operator, band, mode, submode, p, a, b, c, d, e, sum(n)
           FROM (' || parts || ') AS r (station_id, operator, band, mode, submode, p, a, b, c, d, e, n)
           GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 HAVING sum(n) <> 0';
  -- Ids never change: only a move between locations or an operator change adds here.
  EXECUTE 'INSERT INTO qso_id_counts (station_id, operator, block, n)
           SELECT station_id, operator, block, sum(n) FROM (' || blocks || ') AS r (station_id, operator, block, n)
           GROUP BY 1, 2, 3 HAVING sum(n) <> 0';
  RETURN NULL;
END;
$$;

INSERT INTO qso_id_counts (station_id, operator, block, n, folded)
SELECT station_id, operator, id / 4096, count(*), true FROM qso GROUP BY 1, 2, 3;
