-- An upload that names no insert_unmatched leaves it to the download (a QRZ or Club Log
-- download, or any download into a location without QSOs, inserts its unmatched records; a
-- LoTW report or eQSL inbox only reports them): NULL is "not named". strict_callsign refuses
-- records of another station callsign instead of counting them under a warning.
ALTER TABLE import_jobs ALTER COLUMN insert_unmatched DROP NOT NULL;
ALTER TABLE import_jobs ALTER COLUMN insert_unmatched DROP DEFAULT;
ALTER TABLE import_jobs ADD COLUMN IF NOT EXISTS strict_callsign boolean NOT NULL DEFAULT false;
