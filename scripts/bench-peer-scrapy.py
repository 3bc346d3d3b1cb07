"""Scrapy's side of scripts/bench-peers.ts: a CrawlSpider following every link within the corpus hosts.

    http_proxy=http://127.0.0.1:PORT python3 scripts/bench-peer-scrapy.py PAGES IN_FLIGHT SEED,... HOST,...

Scrapy's defaults except: CONCURRENT_REQUESTS = IN_FLIGHT, no download delay, robots.txt not read,
CLOSESPIDER_PAGECOUNT = PAGES (requests in flight when it is reached still finish), no telnet
console, log level WARNING. Pages are received and their links followed; nothing is stored. The
corpus hosts are reached through the benchmark's nginx as an HTTP proxy (the environment's
http_proxy, read by Scrapy's HttpProxyMiddleware): nginx serves absolute-form requests by their
host. Prints Scrapy's stats as one JSON line at the end.
"""
import json
import sys

from scrapy.crawler import CrawlerProcess
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule

pages, in_flight = int(sys.argv[1]), int(sys.argv[2])
seeds, hosts = sys.argv[3].split(','), sys.argv[4].split(',')


class BenchSpider(CrawlSpider):
    name = 'bench'
    allowed_domains = hosts
    start_urls = seeds
    rules = (Rule(LinkExtractor(allow_domains=hosts), callback='page', follow=True),)

    def page(self, response):
        return None


process = CrawlerProcess(settings={
    'CONCURRENT_REQUESTS': in_flight,
    'DOWNLOAD_DELAY': 0,
    'ROBOTSTXT_OBEY': False,
    'CLOSESPIDER_PAGECOUNT': pages,
    'TELNETCONSOLE_ENABLED': False,
    'LOG_LEVEL': 'WARNING',
})
crawler = process.create_crawler(BenchSpider)
process.crawl(crawler)
process.start()
stats = crawler.stats.get_stats()
print(json.dumps({k: v if isinstance(v, (int, float, str)) else str(v) for k, v in stats.items()}))
