"""The archive: WARC segments on disk, their indexes, and what keeps them tidy (DESIGN.md §7).

warc         writing and reading WARC records (warcio), one gzip member each
cdxj         CDXJ index lines
segments     one WARC + CDXJ per crawl round; open segments recovered after a kill
captures     finding a page's captures through the indexes
compaction   folding low-liveness segments into one, crash-safely
recovery     what a killed writer left, finished or undone
"""
