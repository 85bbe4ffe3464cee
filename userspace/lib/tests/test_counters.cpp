// SPDX-License-Identifier: GPL-2.0-only
/*
 * libvrnic: counter samples from hw_counters and their rates.
 */
#include <gtest/gtest.h>

#include "fake_sysfs.hpp"
#include "vrnic/counters.hpp"
#include "vrnic/error.hpp"

using namespace vrnic;
using namespace std::chrono_literals;
using vrnic::test::FakeSysfs;

TEST(Counters, EveryFileButLifespan)
{
	FakeSysfs f;
	f.add_vrnic("vrnic0");
	f.counter("vrnic0", 1, "brand_new_counter", 5);
	auto s = sample_counters(f.sysfs(), "vrnic0", 1, Clock::time_point{});
	EXPECT_EQ(s.values.size(), 17u);
	for (auto &[n, v] : s.values)
		EXPECT_NE(n, "lifespan");
	EXPECT_EQ(s.values.front().first, "brand_new_counter");
	EXPECT_EQ(s.values.front().second, 5u);
}

TEST(Counters, NoHwCountersIsAnError)
{
	FakeSysfs f;
	f.file("class/infiniband/x0/ports/1/state", "4: ACTIVE");
	EXPECT_THROW(sample_counters(f.sysfs(), "x0", 1, Clock::time_point{}), Error);
}

TEST(Counters, RatePerSecond)
{
	CounterSample a{"vrnic0", 1, Clock::time_point{}, {{"rcvd_pkts", 100}, {"sent_pkts", 10}}};
	CounterSample b{"vrnic0", 1, Clock::time_point{} + 2500ms,
			{{"rcvd_pkts", 600}, {"sent_pkts", 10}}};
	EXPECT_DOUBLE_EQ(interval_seconds(a, b), 2.5);
	auto r = counter_rates(a, b);
	ASSERT_EQ(r.size(), 2u);
	EXPECT_EQ(r[0].name, "rcvd_pkts");
	EXPECT_EQ(r[0].value, 600u);
	EXPECT_EQ(r[0].delta, 500u);
	EXPECT_DOUBLE_EQ(r[0].per_second, 200.0);
	EXPECT_DOUBLE_EQ(r[1].per_second, 0.0);
}

TEST(Counters, ResetAndNewCountersAreNotNegative)
{
	CounterSample a{"vrnic0", 1, Clock::time_point{}, {{"sent_pkts", 1000}}};
	CounterSample b{"vrnic0", 1, Clock::time_point{} + 1s, {{"new", 7}, {"sent_pkts", 3}}};
	auto r = counter_rates(a, b);
	ASSERT_EQ(r.size(), 2u);
	for (auto &c : r) {
		EXPECT_EQ(c.delta, 0u) << c.name;
		EXPECT_GE(c.per_second, 0.0) << c.name;
	}
}

TEST(Counters, SamplesOutOfOrderAreAnError)
{
	CounterSample a{"vrnic0", 1, Clock::time_point{} + 1s, {}};
	CounterSample b{"vrnic0", 1, Clock::time_point{} + 1s, {}};
	EXPECT_THROW(counter_rates(a, b), Error);
}

TEST(Counters, RatesFromTheFakeTree)
{
	FakeSysfs f;
	f.add_vrnic("vrnic0");
	auto fs = f.sysfs();
	f.counter("vrnic0", 1, "sent_pkts", 1000);
	auto a = sample_counters(fs, "vrnic0", 1, Clock::time_point{});
	f.counter("vrnic0", 1, "sent_pkts", 1500);
	auto b = sample_counters(fs, "vrnic0", 1, Clock::time_point{} + 500ms);
	for (auto &c : counter_rates(a, b))
		EXPECT_DOUBLE_EQ(c.per_second, c.name == "sent_pkts" ? 1000.0 : 0.0) << c.name;
}
