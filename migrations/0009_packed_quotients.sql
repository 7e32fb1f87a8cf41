-- nimdb schema, version 9: quotients stored packed.

-- A quotient row written from this version on keeps its quotient in `packed`: the bytes of
-- docs/FORMAT.md ("A packed quotient"), the multiplication table as the action of a few
-- generators, far smaller than the JSON of `data` (which such a row leaves NULL). Its
-- checksum_scheme is 3: the CRC-32 of the row's columns as before, with `data` empty, then
-- the packed bytes. Rows written before keep their JSON and their scheme and still load.
ALTER TABLE quotients ADD COLUMN packed BLOB;
