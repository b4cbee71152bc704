// deep.cc - held-out C++ for bench/unwinders.sh, built -O2
// -fomit-frame-pointer: the hot store is reached through a virtual call,
// a std::function and a template instantiated per depth.
#include <cstdlib>
#include <functional>
#include <thread>
#include <vector>

struct Stats {
	long hits;
	long misses;        // the other thread's: same line
};

struct Sink {
	virtual ~Sink() = default;
	virtual void add(Stats &s, long n) = 0;
};

struct CountingSink : Sink {
	__attribute__((noinline)) void add(Stats &s, long n) override
	{
		for (long i = 0; i < n; i++)
			reinterpret_cast<volatile long &>(s.hits) += i;
	}
};

template <int Depth>
__attribute__((noinline)) long descend(Sink &sink, Stats &s, long n)
{
	if constexpr (Depth == 0) {
		sink.add(s, n);
		return s.hits;
	} else {
		return descend<Depth - 1>(sink, s, n) + Depth;
	}
}

static Stats stats[2];

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? std::atol(argv[1]) : 4000;
	CountingSink sink;
	std::vector<std::thread> threads;

	for (int id = 0; id < 2; id++) {
		std::function<long()> step = [&sink, id] {
			return descend<3>(sink, *reinterpret_cast<Stats *>(
				reinterpret_cast<long *>(&stats[0]) + id), 100000);
		};
		threads.emplace_back([step, rounds] {
			long sum = 0;
			for (long r = 0; r < rounds; r++)
				sum += step();
			return sum;
		});
	}
	for (auto &t : threads)
		t.join();
	return 0;
}
