spot_pools = {
  crawl = { instance = "m6a.large", labels = { tier = "crawl" } }
}
