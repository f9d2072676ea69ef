-- Accounts: ordinary users and clubstation accounts (is_club). Instance administrators have is_admin.
CREATE TABLE users (
  id          integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  username    text NOT NULL UNIQUE,
  callsign    text NOT NULL,
  email       text,
  firstname   text,
  lastname    text,
  locator     text,
  language    text NOT NULL DEFAULT 'english',
  is_club     boolean NOT NULL DEFAULT false,
  is_admin    boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Club membership: level 3 member, 6 member (ADIF), 9 officer.
CREATE TABLE club_members (
  club_id     integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  user_id     integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  level       smallint NOT NULL CHECK (level IN (3, 6, 9)),
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (club_id, user_id)
);
CREATE INDEX club_members_user ON club_members (user_id);

-- Station locations (logbook profiles). At most one active location per user.
CREATE TABLE stations (
  id          integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id     integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  uuid        uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
  name        text NOT NULL,
  callsign    text NOT NULL,
  gridsquare  text NOT NULL DEFAULT '',
  city        text NOT NULL DEFAULT '',
  dxcc        integer,
  country     text NOT NULL DEFAULT '',
  cq          integer,
  itu         integer,
  state       text NOT NULL DEFAULT '',
  cnty        text NOT NULL DEFAULT '',
  iota        text NOT NULL DEFAULT '',
  sota        text NOT NULL DEFAULT '',
  wwff        text NOT NULL DEFAULT '',
  pota        text NOT NULL DEFAULT '',
  sig         text NOT NULL DEFAULT '',
  sig_info    text NOT NULL DEFAULT '',
  power       integer,
  active      boolean NOT NULL DEFAULT false,
  -- Integration settings of the original product's profile form (eQSL nickname, upload switches, OQRS):
  -- kept so that v1 create_station round-trips them, but nothing here uploads anywhere.
  settings    jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX stations_user ON stations (user_id);
CREATE UNIQUE INDEX stations_one_active ON stations (user_id) WHERE active;

-- Logbooks group station locations; the public slug addresses them in the v1 check calls.
CREATE TABLE logbooks (
  id          integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id     integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name        text NOT NULL,
  slug        text UNIQUE,
  active      boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, name)
);
CREATE UNIQUE INDEX logbooks_one_active ON logbooks (user_id) WHERE active;

CREATE TABLE logbook_stations (
  logbook_id  integer NOT NULL REFERENCES logbooks(id) ON DELETE CASCADE,
  station_id  integer NOT NULL REFERENCES stations(id) ON DELETE CASCADE,
  PRIMARY KEY (logbook_id, station_id)
);
CREATE INDEX logbook_stations_station ON logbook_stations (station_id);

-- QSOs. Column names are the lower-case ADIF field names; ADIF fields without a column of
-- their own (APP_*, USERDEFn and the rarely used rest of the catalogue) live in extra.
-- freq/freq_rx are integer Hz; time_on/time_off are UTC.
CREATE TABLE qso (
  id                          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  station_id                  integer NOT NULL REFERENCES stations(id) ON DELETE CASCADE,
  call                        text NOT NULL,
  time_on                     timestamp(0) NOT NULL,
  time_off                    timestamp(0),
  band                        text NOT NULL DEFAULT '',
  band_rx                     text,
  mode                        text NOT NULL DEFAULT '',
  submode                     text,
  freq                        bigint,
  freq_rx                     bigint,
  rst_sent                    text,
  rst_rcvd                    text,
  name                        text,
  qth                         text,
  gridsquare                  text,
  vucc_grids                  text,
  comment                     text,
  notes                       text,
  email                       text,
  prop_mode                   text,
  sat_name                    text,
  sat_mode                    text,
  dxcc                        integer,
  country                     text,
  cont                        text,
  cqz                         integer,
  ituz                        integer,
  pfx                         text,
  state                       text,
  cnty                        text,
  iota                        text,
  sota_ref                    text,
  wwff_ref                    text,
  pota_ref                    text,
  sig                         text,
  sig_info                    text,
  darc_dok                    text,
  tx_pwr                      text,
  rx_pwr                      text,
  srx                         integer,
  stx                         integer,
  srx_string                  text,
  stx_string                  text,
  contest_id                  text,
  operator                    text,
  station_callsign            text,
  owner_callsign              text,
  my_gridsquare               text,
  distance                    text,
  qsl_sent                    text,
  qsl_rcvd                    text,
  qslsdate                    date,
  qslrdate                    date,
  qsl_sent_via                text,
  qsl_rcvd_via                text,
  qsl_via                     text,
  qslmsg                      text,
  qslmsg_rcvd                 text,
  lotw_qsl_sent               text,
  lotw_qsl_rcvd               text,
  lotw_qslsdate               date,
  lotw_qslrdate               date,
  eqsl_qsl_sent               text,
  eqsl_qsl_rcvd               text,
  eqsl_qslsdate               date,
  eqsl_qslrdate               date,
  eqsl_ag                     text,
  qrzcom_qso_upload_status    text,
  qrzcom_qso_upload_date      date,
  qrzcom_qso_download_status  text,
  qrzcom_qso_download_date    date,
  clublog_qso_upload_status   text,
  clublog_qso_upload_date     date,
  clublog_qso_download_status text,
  clublog_qso_download_date   date,
  hrdlog_qso_upload_status    text,
  hrdlog_qso_upload_date      date,
  dcl_qsl_sent                text,
  dcl_qsl_rcvd                text,
  dcl_qslsdate                date,
  dcl_qslrdate                date,
  extra                       jsonb,
  created_at                  timestamptz NOT NULL DEFAULT now(),
  updated_at                  timestamptz
);

-- The duplicate rule (same station, callsign, minute of time_on, band, main mode) as a unique
-- index: concurrent imports into one station can never store the same QSO twice.
CREATE UNIQUE INDEX qso_dupe_key ON qso (station_id, call, date_trunc('minute', time_on), band, mode);
-- since_id paging and ADIF export (ascending id per station).
CREATE INDEX qso_station_id ON qso (station_id, id);
-- JSON list newest first, date ranges, statistics by period.
CREATE INDEX qso_station_time ON qso (station_id, time_on DESC, id DESC);
CREATE INDEX qso_station_band_time ON qso (station_id, band, time_on DESC);
CREATE INDEX qso_station_mode_time ON qso (station_id, mode, time_on DESC);
CREATE INDEX qso_station_submode_time ON qso (station_id, submode, time_on DESC) WHERE submode IS NOT NULL;
-- Confirmation listing: one partial index per confirmation type on its received date.
CREATE INDEX qso_conf_qsl ON qso (station_id, qslrdate DESC) WHERE qsl_rcvd = 'Y';
CREATE INDEX qso_conf_lotw ON qso (station_id, lotw_qslrdate DESC) WHERE lotw_qsl_rcvd = 'Y';
CREATE INDEX qso_conf_eqsl ON qso (station_id, eqsl_qslrdate DESC) WHERE eqsl_qsl_rcvd = 'Y';
CREATE INDEX qso_conf_qrz ON qso (station_id, qrzcom_qso_download_date DESC) WHERE qrzcom_qso_download_status = 'Y';
CREATE INDEX qso_conf_clublog ON qso (station_id, clublog_qso_download_date DESC) WHERE clublog_qso_download_status = 'Y';

-- Things that hang on a QSO and go with it (the teardown of a delete is the cascade).
CREATE TABLE qsl_images (
  id          integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  qso_id      bigint NOT NULL REFERENCES qso(id) ON DELETE CASCADE,
  filename    text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX qsl_images_qso ON qsl_images (qso_id);

CREATE TABLE oqrs_requests (
  id          integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  qso_id      bigint REFERENCES qso(id) ON DELETE CASCADE,
  requester   text NOT NULL,
  message     text NOT NULL DEFAULT '',
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oqrs_requests_qso ON oqrs_requests (qso_id);

-- v2 tokens: only the SHA-256 of the token is kept. user_id is the owner (the club account for
-- club tokens); created_by is the acting member.
CREATE TABLE api_tokens (
  id           integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id      integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_by   integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name         text NOT NULL,
  token_hash   text NOT NULL UNIQUE,
  scopes       text[] NOT NULL,
  expires_at   timestamptz,
  revoked_at   timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);
CREATE INDEX api_tokens_user ON api_tokens (user_id);

-- v1 keys: read-only ('r') or read/write ('rw'); hashed like v2 tokens.
CREATE TABLE api_keys (
  id           integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id      integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_by   integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  key_hash     text NOT NULL UNIQUE,
  rights       text NOT NULL CHECK (rights IN ('r', 'rw')),
  description  text NOT NULL DEFAULT '',
  active       boolean NOT NULL DEFAULT true,
  created_at   timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);
CREATE INDEX api_keys_user ON api_keys (user_id);

-- CAT state of a radio, one row per (owner, radio name); operator_id is the member for club radios.
CREATE TABLE radios (
  id           integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id      integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  operator_id  integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  radio        text NOT NULL,
  frequency    bigint,
  frequency_rx bigint,
  mode         text,
  mode_rx      text,
  power        integer,
  prop_mode    text,
  sat_name     text,
  sat_mode     text,
  uplink_freq  bigint,
  downlink_freq bigint,
  uplink_mode  text,
  downlink_mode text,
  cat_url      text,
  updated_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, radio)
);

-- Contest sessions and the QSOs linked to them.
CREATE TABLE contest_sessions (
  id          integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id     integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  station_id  integer NOT NULL REFERENCES stations(id) ON DELETE CASCADE,
  contest     text NOT NULL,
  time_start  timestamptz NOT NULL,
  time_end    timestamptz,
  comment     text NOT NULL DEFAULT '',
  settings    jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX contest_sessions_user ON contest_sessions (user_id);

CREATE TABLE contest_session_qsos (
  session_id  integer NOT NULL REFERENCES contest_sessions(id) ON DELETE CASCADE,
  qso_id      bigint NOT NULL REFERENCES qso(id) ON DELETE CASCADE,
  PRIMARY KEY (session_id, qso_id)
);
CREATE INDEX contest_session_qsos_qso ON contest_session_qsos (qso_id);

-- Sliding-window rate limiting shared by several API processes (when Redis is not configured).
CREATE UNLOGGED TABLE rate_limit_hits (
  bucket_key  text NOT NULL,
  hit_at      double precision NOT NULL
);
CREATE INDEX rate_limit_hits_key ON rate_limit_hits (bucket_key, hit_at);
