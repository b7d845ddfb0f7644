"""The archive: WARC segments on disk, their indexes, and what keeps them tidy (docs/design.md §7).

warc            reading WARC records (warcio), and what readers and writers share
warc_writer     writing WARC records, one gzip member each
cdxj            CDXJ index lines, keyed with the standard SURT
index_keys      re-keying indexes an older Recrawl keyed its own way, once
segments        one WARC + CDXJ per crawl round: names, paths, reading a payload
segment_writer  writing and closing a round's segment; open segments recovered after a kill
captures        finding a page's captures through the indexes
compaction      folding low-liveness segments into one, crash-safely
recovery        what a killed writer left, finished or undone
"""
