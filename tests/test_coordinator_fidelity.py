"""`tf.train.Coordinator`'s registered threads, against TF's."""

import threading

import ferroflow as ff


def _registered(lib):
    coord = lib.train.Coordinator()
    stop = threading.Event()
    threads = [threading.Thread(target=stop.wait) for _ in range(3)]
    sizes = [len(coord._registered_threads)]
    for t in threads:
        coord.register_thread(t)
        sizes.append(len(coord._registered_threads))
    coord.register_thread(threads[0])
    sizes.append(len(coord._registered_threads))
    with coord._lock:
        same = coord._registered_threads == set(threads)
    for t in threads:
        t.start()
    stop.set()
    coord.join()
    sizes.append(len(coord._registered_threads))
    return sizes, same


def test_registered_threads_are_a_set_emptied_by_join(tf1):
    ours = _registered(ff)
    assert ours == _registered(tf1)
    assert ours == ([0, 1, 2, 3, 3, 0], True)
