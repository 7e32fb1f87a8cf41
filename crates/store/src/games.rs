//! How games are keyed in the database: by their storage id
//! ([`GameSpec::storage_id`]) since schema version 7, by their display name before.
//!
//! Every table that stores something of a game (`solves`, `heap_values`, `heap_sequences`,
//! `quotients`) keys it by the `game` column. A database of schema version 7 or later holds
//! storage ids there, which follow from the rules alone; an older one, read as it is, holds
//! the display names of the nimdb that wrote it, which are found again by parsing them.

use nimdb_core::game::GameSpec;

use super::database::Database;
use super::error::StoreError;
use super::schema::STORAGE_IDS_SINCE_VERSION;

impl Database {
    /// The value of the `game` column that keys `game` in this database: its storage id, or
    /// in a database older than schema version 7 (read as it is) the name it was stored
    /// under, found by parsing the stored names (so a game renamed since is still found),
    /// else its display name today.
    pub fn game_key(&self, game: &GameSpec) -> Result<String, StoreError> {
        if self.schema_version() >= STORAGE_IDS_SINCE_VERSION {
            return Ok(game.storage_id());
        }
        let names = stored_names(&self.conn, false)?;
        Ok(names
            .into_iter()
            .find(|n| stored_game(n).is_some_and(|g| &g == game))
            .unwrap_or_else(|| game.canonical()))
    }
}

/// The game's display name for a stored `game` column: today's name of the game it keys
/// (a storage id, or a display name written before schema version 7), or the column as
/// it is when it names no game this nimdb knows.
pub fn game_name(column: &str) -> String {
    if let Some(game) = nimdb_core::game::Game::from_storage_id(column) {
        return game.to_string();
    }
    stored_game(column).map_or_else(|| column.to_string(), |g| g.canonical())
}

/// The game a stored `game` column keys: a storage id, or a display name (parsed as a spec).
fn stored_game(column: &str) -> Option<GameSpec> {
    GameSpec::from_storage_id(column).or_else(|| column.parse().ok())
}

/// Every distinct `game` column value stored (schema version 4 on) in `solves`,
/// `heap_sequences` and `quotients`, and with `heap_values`, in `heap_values` too (a scan of
/// every row; a game's heap values are read only with its `heap_sequences` row).
pub(crate) fn stored_names(conn: &rusqlite::Connection, heap_values: bool) -> rusqlite::Result<Vec<String>> {
    let also = if heap_values { " UNION SELECT game FROM heap_values" } else { "" };
    conn.prepare(&format!(
        "SELECT game FROM solves UNION SELECT game FROM heap_sequences UNION SELECT game FROM quotients{also} ORDER BY 1"
    ))?
    .query_map([], |r| r.get(0))?
    .collect()
}
