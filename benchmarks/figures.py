"""Figures the benchmarks print: medians and p99 of timings, and milliseconds spelled for tables."""

import statistics


def p50_p99(times: list[float]) -> tuple[float, float]:
    p99 = statistics.quantiles(times, n=100, method="inclusive")[98] if len(times) > 1 else times[0]
    return statistics.median(times), p99


def ms(seconds: float) -> str:
    value = seconds * 1000
    return f"{value:.2f} ms" if value < 10 else f"{value:.1f} ms" if value < 100 else f"{value:,.0f} ms"
