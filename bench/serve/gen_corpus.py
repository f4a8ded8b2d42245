#!/usr/bin/env python3
"""Deterministic records for the `warrant serve` load test: N documents of one chunk each
(about 600 characters: a product's shipping, warranty, price, support and returns).

  gen_corpus.py N > records.json    (a JSON array of {"id", "text"} records)
"""
import json
import random
import sys

COLOURS = "red blue green amber violet silver black white coral teal".split()
PLACES = "Lisbon Oslo Denver Osaka Nairobi Quito Perth Tallinn Dakar Hanoi".split()


def doc(i, rng):
    c, p = rng.choice(COLOURS), rng.choice(PLACES)
    days, years, price, hours = rng.randint(1, 14), rng.randint(1, 5), rng.randint(9, 900), rng.randint(8, 24)
    return {
        "id": f"product-{i}",
        "text": (
            f"Product {i} is the {c} model assembled in {p}. "
            f"Product {i} ships within {days} business days of the order. "
            f"The warranty for product {i} lasts {years} years and covers parts and labour. "
            f"Product {i} costs ${price} per unit before taxes. "
            f"Support for product {i} is available {hours} hours a day by phone and chat. "
            f"Returns of product {i} are accepted within 30 days when the seal is intact. "
            f"Replacement parts for product {i} are stocked in {p} and shipped on request."
        ),
    }


def main():
    n = int(sys.argv[1])
    rng = random.Random(9)
    json.dump([doc(i, rng) for i in range(n)], sys.stdout)


main()
