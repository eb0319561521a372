-- Search by name by words (docs/ARCHITECTURE.md, "Search", "By name"): `venues.name_key` holds
-- the folded words of the name (`NameWords.key`, " the king s arms"), written with every venue.
-- The column is added and filled for the venues already stored by this migration's preparation
-- in code (`NameKeysFill`: folding is Swift's, not PostgreSQL's, so that the search index and
-- PostgreSQL compare the same bytes); here the venues an older server wrote meanwhile are filled
-- under a lock (by the same preparation), then the trigram index is built.
ALTER TABLE venues ADD COLUMN IF NOT EXISTS name_key text;
CREATE INDEX venues_name_key_trgm_idx ON venues USING gin (name_key gin_trgm_ops);
