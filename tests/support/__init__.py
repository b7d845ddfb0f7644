"""What the tests share: real servers on 127.0.0.x, crawls, stores, PostgreSQL clusters."""
