"""What every room of the core uses: who acts (actors), the in-process event bus, the clock, the
settings, the errors a caller may see, ids, and the one builder of page paths (urls)."""
