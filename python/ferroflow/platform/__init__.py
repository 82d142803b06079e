"""Program plumbing, as TF's `tensorflow.python.platform`.

The flags, the app entry point, logging and file access (`tf.app`, `tf.flags`,
`tf.logging`, `tf.gfile`).
"""
