"""One module per schema revision, applied in order by `storage.migrate.upgrade`."""
