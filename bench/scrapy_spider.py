"""Scrapy baseline for bench/crawl_bench.py: follow every same-site link from one start URL.

Run as ``python bench/scrapy_spider.py START_URL RESULT_JSON [--concurrency N]``; writes the
crawl's stats (pages parsed, responses, elapsed time) to RESULT_JSON.
"""

from __future__ import annotations

import argparse
import json
import time
from urllib.parse import urlsplit

import scrapy
from scrapy.crawler import CrawlerProcess


class SiteSpider(scrapy.Spider):
    name = "bench_site"

    def __init__(self, start_url: str, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.start_url = start_url
        self.netloc = urlsplit(start_url).netloc
        self.parsed = 0

    # the start request goes through the dupe filter too (start_urls would bypass it and
    # fetch /index.html twice); start() for Scrapy >= 2.13, start_requests() before that
    async def start(self):  # type: ignore[override]
        for request in self.start_requests():
            yield request

    def start_requests(self):  # type: ignore[override]
        yield scrapy.Request(self.start_url, callback=self.parse)

    def parse(self, response):  # type: ignore[override]
        self.parsed += 1
        for href in response.css("a::attr(href)").getall():
            url = response.urljoin(href)
            if urlsplit(url).netloc == self.netloc:
                yield scrapy.Request(url, callback=self.parse)
        yield {"url": response.url, "status": response.status}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("start_url")
    parser.add_argument("result")
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    settings = {
        "CONCURRENT_REQUESTS": args.concurrency,
        "CONCURRENT_REQUESTS_PER_DOMAIN": args.concurrency,
        "DOWNLOAD_DELAY": 0,
        "AUTOTHROTTLE_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
        "TWISTED_REACTOR": "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
    }
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(SiteSpider)
    started = time.perf_counter()
    process.crawl(crawler, start_url=args.start_url)
    process.start()
    elapsed = time.perf_counter() - started
    stats = crawler.stats.get_stats()
    result = {
        "parsed": crawler.spider.parsed,
        "elapsed_s": stats.get("elapsed_time_seconds", elapsed),
        "responses": stats.get("response_received_count", 0),
        "status_200": stats.get("downloader/response_status_count/200", 0),
        "errors": stats.get("downloader/exception_count", 0),
        "duplicates_filtered": stats.get("dupefilter/filtered", 0),
        "finish_reason": stats.get("finish_reason"),
    }
    with open(args.result, "w", encoding="utf-8") as out:
        json.dump(result, out)


if __name__ == "__main__":
    main()
