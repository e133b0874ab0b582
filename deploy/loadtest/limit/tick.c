/*
 * tick: wakes every --cycle-us microseconds for -t seconds and does nothing else.
 *
 * locstream's external publisher (`pub`) shares gen's core and wakes there every
 * --cycle-us; the C servers make their updates in-process and have no such neighbour.
 * side_by_side.py --ref-neighbour runs tick on the publisher's core beside a C server,
 * so that both receivers share their core with the same schedule (pub's wake-ups
 * without its sends). Bounded by -t; it opens no socket.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static struct option lo[] = {{"cycle-us", 1, 0, 1}, {0, 0, 0, 0}};
	long cycle_us = 1000;
	double seconds = 0;
	int o;
	while ((o = getopt_long(argc, argv, "t:", lo, NULL)) != -1) {
		switch (o) {
		case 1: cycle_us = atol(optarg); break;
		case 't': seconds = atof(optarg); break;
		default:
			fprintf(stderr, "tick -t seconds [--cycle-us 1000]\n");
			return 2;
		}
	}
	if (seconds <= 0 || seconds > 3600 || cycle_us < 10) {
		fprintf(stderr, "tick: need 0 < -t <= 3600 and --cycle-us >= 10\n");
		return 2;
	}
	uint64_t end = mono_ns() + (uint64_t)(seconds * 1e9), next = mono_ns(), cycles = 0;
	while (next < end) {
		next += (uint64_t)cycle_us * 1000;
		struct timespec ts = {.tv_sec = next / 1000000000ull, .tv_nsec = next % 1000000000ull};
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		cycles++;
	}
	printf("{\"tick_cycles\":%llu}\n", (unsigned long long)cycles);
	return 0;
}
