"""The Segments panel: liveness per segment, and compaction."""
