"""k-subset item reports read off the packed reports: the same reports' set bits, on both paths, whatever the block."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from mechopt.errors import ProblemError, TooLargeError
from mechopt.oracles import ksubset
from mechopt.oracles import mask_items as mi
from mechopt.oracles.ksubset import KSubset, items_from_masks
from mechopt.runtime import jit
from mechopt.runtime.bitgen import bswap64, ctlz64


def _set_bits(packed: np.ndarray, d: int, k: int) -> np.ndarray:
    return np.nonzero(np.unpackbits(packed, axis=1, count=d))[1].reshape(packed.shape[0], k)


@pytest.mark.parametrize("d", [3, 9, 16, 17, 40, 256, 1000])
def test_items_are_the_set_bits_of_the_packed_reports_on_both_paths(d: int) -> None:
    """randomize(x, rng) = the positions of the set bits of randomize(x, rng, packed=True), ascending, for the
    same seed; the compiled walk (ctlz) and the numpy one (unpackbits) give the same items."""
    ks = KSubset(d, 1.0)
    n = mi.ITEMS_BLOCK + 777 if d <= 40 else 3001  # across a block boundary, not a multiple
    x = np.random.default_rng(d).integers(0, d, n)
    want = _set_bits(ks.randomize(x, np.random.default_rng(7), packed=True), d, ks.k)
    slow, fast = jit.numpy_and_compiled(lambda: ks.randomize(x, np.random.default_rng(7)), mi._walk)
    assert slow.dtype == fast.dtype == np.int16 and slow.shape == (n, ks.k)
    assert np.array_equal(slow, want) and np.array_equal(fast, want)


@pytest.mark.parametrize("d,k", [(16, 4), (40, 11), (300, 150)])
def test_item_reports_do_not_depend_on_the_block_size(d: int, k: int) -> None:
    ks = KSubset(d, 1.0, k)
    x = np.random.default_rng(1).integers(0, d, 3 * mi.ITEMS_BLOCK + 11)
    one = mi.own_subset_items(np.random.default_rng(2), x, d, k, ks.g)
    for block in (2 * mi.ITEMS_BLOCK, 4 * mi.ITEMS_BLOCK):
        assert np.array_equal(mi.own_subset_items(np.random.default_rng(2), x, d, k, ks.g, block=block), one)
    g = np.random.default_rng(2)  # calls on chunks that are multiples of the block: the reports of one call
    parts = [ks.randomize(x[lo : lo + mi.ITEMS_BLOCK], g) for lo in range(0, x.size, mi.ITEMS_BLOCK)]
    assert np.array_equal(np.concatenate(parts), one)
    with pytest.raises(ProblemError, match="multiple of 65536"):
        mi.own_subset_items(np.random.default_rng(2), x, d, k, ks.g, block=1000)


# sha256 of KSubset(d, 1.0).randomize(x, default_rng(seed)) items since branch items-fast (the packed reports'
# set bits; Floyd's sampler drew other reports for a seed before); compiled = numpy path
ITEMS = {
    (16, 1, 70_000): "5ed082e6395664c2da18471e0f5a76fa30bdc0ee08eafa70546045c5a2fb0f14",
    (40, 2, 70_000): "dfda16b080fbc703aa2bc746577f0b4d1cc1cef4f85554b72ce1fc6bc34177af",
    (256, 3, 5000): "d2752cbf3920bf9bb4129eb25fcfab14c6404992292327564c8eda9d4157f8af",
}


@pytest.mark.parametrize("case", sorted(ITEMS))
def test_the_item_report_stream_is_pinned(case) -> None:
    d, seed, n = case
    x = np.random.default_rng(seed + 50).integers(0, d, n)
    z = KSubset(d, 1.0).randomize(x, np.random.default_rng(seed))
    assert hashlib.sha256(z.astype("<i2").tobytes()).hexdigest() == ITEMS[case]


def test_the_route_rule() -> None:
    """Masks up to d = 16384 or from k = d/16; Floyd's sampler (O(k) per user) for d ≫ k, where it still gives
    k distinct items with x in as often as g says."""
    assert items_from_masks(16_384, 1) and items_from_masks(10**6, 62_500) and not items_from_masks(16_385, 1024)
    assert not items_from_masks(3_300_000, 22_086)  # the literature's K and k
    ks = KSubset(20_000, 3.0, 5)
    x = np.random.default_rng(0).integers(0, 20_000, 4000)
    z = ks.randomize(x, np.random.default_rng(1))
    s = np.sort(z, axis=1)
    assert z.dtype == np.int16 and np.all(s[:, 1:] > s[:, :-1]) and z.min() >= 0 and z.max() < 20_000
    hit = (z == x[:, None]).any(axis=1).mean()
    assert abs(hit - ks.g) < 4 * np.sqrt(ks.g * (1 - ks.g) / x.size)


def test_bad_items_and_huge_masks_are_refused(monkeypatch) -> None:
    ks = KSubset(40, 1.0)
    for bad in (np.array([0, 40]), np.array([-1, 3])):
        with pytest.raises(ProblemError, match=r"items must lie in 0\.\.39; got range \["):
            ks.randomize(bad, np.random.default_rng(0))
    monkeypatch.setattr(ksubset, "ITEMS_BITMAP_MAX", 1 << 20)  # 1 MiB of masks per block: 1638 users of d = 5120
    big = KSubset(5120, 1.0)
    with pytest.raises(TooLargeError, match="at most 1638 users per call"):
        big.randomize(np.zeros(2000, dtype=np.int64), np.random.default_rng(0))
    assert big.randomize(np.zeros(1638, dtype=np.int64), np.random.default_rng(0)).shape == (1638, big.k)


def test_ctlz_and_bswap_compiled_equal_python() -> None:
    words = np.array([0, 1, 0x80, 1 << 63, 0x0102030405060708, (1 << 64) - 1, 0xF0F0], dtype=np.uint64)

    @jit.kernel
    def both(w, lz, sw):  # pragma: no cover - compiled
        for i in range(w.size):
            lz[i] = ctlz64(w[i])
            sw[i] = bswap64(w[i])

    lz, sw = np.empty(words.size, dtype=np.int64), np.empty(words.size, dtype=np.uint64)
    both.compiled()(words, lz, sw)
    assert lz.tolist() == [ctlz64(w) for w in words] == [64, 63, 56, 0, 7, 0, 48]
    assert sw.tolist() == [int(bswap64(w)) for w in words]
