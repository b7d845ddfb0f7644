"""Work off the GUI thread: the store's serial lanes, long jobs on their own threads, the thread registry."""
