// SPDX-License-Identifier: GPL-2.0-only
/*
 * vrnicctl: vrnic's control tool.  See Documentation/vrnicctl.rst.
 */
#include <cerrno>
#include <csignal>
#include <iostream>
#include <optional>

#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include "cli.hpp"

namespace {

volatile std::sig_atomic_t interrupted = 0;

void on_sigint(int)
{
	interrupted = 1;
}

/* stdin in non-canonical mode while it lives, so a lone 'q' is read. */
class RawStdin {
public:
	RawStdin()
	{
		if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved_) != 0)
			return;
		termios t = saved_;
		t.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
		t.c_cc[VMIN] = 0;
		t.c_cc[VTIME] = 0;
		active_ = tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0;
	}
	~RawStdin()
	{
		if (active_)
			tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
	}
	RawStdin(const RawStdin &) = delete;
	RawStdin &operator=(const RawStdin &) = delete;
	bool active() const { return active_; }

private:
	termios saved_{};
	bool active_ = false;
};

/*
 * Wait @d; false on SIGINT or, when stdin is a terminal, on 'q'.  (A stdin
 * that is not a terminal is not read: it may be /dev/null, always readable.)
 */
bool wait_for(std::chrono::milliseconds d, const std::optional<RawStdin> &raw)
{
	auto end = vrnic::Clock::now() + d;
	for (;;) {
		if (interrupted)
			return false;
		auto left = std::chrono::ceil<std::chrono::milliseconds>(end - vrnic::Clock::now());
		if (left.count() <= 0)
			return true;
		pollfd p{STDIN_FILENO, POLLIN, 0};
		int n = poll(&p, raw && raw->active() ? 1 : 0, static_cast<int>(left.count()));
		if (n > 0 && (p.revents & POLLIN)) {
			char c;
			if (read(STDIN_FILENO, &c, 1) == 1 && (c == 'q' || c == 'Q'))
				return false;
		}
	}
}

} // namespace

int main(int argc, char **argv)
{
	std::vector<std::string> args(argv + 1, argv + argc);
	struct sigaction sa {};
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, nullptr);

	/* Only "stats watch" reads keys; the terminal is left alone otherwise. */
	std::optional<RawStdin> raw;
	auto fs = vrnic::Sysfs::from_env();
	auto sys = vrnic::live_system(fs);
	vrnicctl::Context ctx{fs, *sys, std::cout, std::cerr, vrnic::Clock::now, {}, {}};
	ctx.wait = [&raw](std::chrono::milliseconds d) {
		if (!raw && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))
			raw.emplace();
		return wait_for(d, raw);
	};
	return vrnicctl::run(args, ctx);
}
