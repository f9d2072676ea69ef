-- A logbook's public live log (docs/public-log.md): off until its owner publishes it; times
-- hidden and frequencies shown by default, as Club Log's live streams do.
ALTER TABLE logbooks ADD COLUMN IF NOT EXISTS public boolean NOT NULL DEFAULT false;
ALTER TABLE logbooks ADD COLUMN IF NOT EXISTS public_show_times boolean NOT NULL DEFAULT false;
ALTER TABLE logbooks ADD COLUMN IF NOT EXISTS public_show_frequency boolean NOT NULL DEFAULT true;
ALTER TABLE logbooks ADD COLUMN IF NOT EXISTS public_banner text NOT NULL DEFAULT '';
DO $$ BEGIN
  ALTER TABLE logbooks ADD CONSTRAINT logbooks_public_banner_length CHECK (char_length(public_banner) <= 500);
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
