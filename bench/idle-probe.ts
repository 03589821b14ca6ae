// An idle Node process with the event-loop probe (bench/loop-delay-preload.ts): the delay
// it sees during a phase is the machine's own (the VM losing its CPUs, other work), not
// any target's, and is reported beside theirs. Prints {} once ready; exits when stdin
// closes or on SIGTERM.

process.on('SIGTERM', () => process.exit(0));
process.stdin.on('close', () => process.exit(0));
process.stdin.resume();
process.stdout.write('{}\n');
