-- nimdb schema, version 4: every heap_values row carries a CRC-32 of its own contents, so an
-- edited row is caught when it is read. Rows written before this version have none; they
-- are not trusted (read as absent), so the values are computed again and rewritten with
-- their checksums the next time the game's heaps are asked for.
ALTER TABLE heap_values ADD COLUMN checksum INTEGER;
