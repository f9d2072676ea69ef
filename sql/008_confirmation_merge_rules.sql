-- Rules of the import's confirm/merge policies (lib/import/matchBatch.ts), kept in SQL so that
-- one set-based UPDATE per batch can apply them.

-- LoTW's mode groups: a report record matches a stored QSO of the same group (FT4 finds
-- MFSK/FT4, USB finds SSB). The argument is the stored main mode (after submode splitting);
-- a report may also name a group itself (PHONE, DATA, IMAGE).
CREATE OR REPLACE FUNCTION qso_mode_group(mode text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN mode IS NULL OR mode = '' THEN ''
    WHEN mode = 'CW' THEN 'CW'
    WHEN mode IN ('PHONE', 'SSB', 'AM', 'FM', 'DIGITALVOICE', 'DSTAR', 'C4FM', 'DMR', 'FREEDV', 'M17') THEN 'PHONE'
    WHEN mode IN ('IMAGE', 'SSTV', 'ATV', 'FAX') THEN 'IMAGE'
    ELSE 'DATA'
  END
$$;

-- How far a QSL/upload/download status has come: a status only moves forward.
--   0 absent or unknown < 1 N (no) < 2 R requested, Q queued, I ignore, M modified < 3 Y yes, V verified
-- Statuses of equal rank never replace each other.
CREATE OR REPLACE FUNCTION qsl_status_rank(status text) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE upper(status)
    WHEN 'Y' THEN 3 WHEN 'V' THEN 3
    WHEN 'R' THEN 2 WHEN 'Q' THEN 2 WHEN 'I' THEN 2 WHEN 'M' THEN 2
    WHEN 'N' THEN 1
    ELSE 0
  END
$$;
