// support/fork_generation.h - whether this process was forked since something was made.
//
// Threads, kept connections and scratch directories belong to the process that made them. A
// child forked afterwards (Python's multiprocessing forks by default on Linux) has none of the
// threads, shares the sockets and event queues with its parent, and must not remove the
// parent's files: what it finds of the parent's it leaves as it is and makes its own.
#pragma once

namespace ckpt {

// How many forks this process came out of as the child since the library was loaded: a value
// kept beside an object and found different later says the object is the parent's. An atomic
// load (a hook of pthread_atfork counts), not a system call: asked per request.
unsigned fork_generation();

}  // namespace ckpt
