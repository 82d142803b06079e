"""Which tensors an op may take across control-flow contexts (TF's `control_flow_util`).

An op may use a tensor of its own context or of any enclosing one, or of a `cond`
branch outside any while loop; a tensor of a while loop is only for ops inside that
loop (and its gradient). TF raises `ValueError` as the op is created, and so does
ferroflow.
"""

from __future__ import annotations

import contextlib
import threading

from ..platform import tf_logging as logging

_state = threading.local()


def _forward_contexts() -> list:
    stack = getattr(_state, "forward_contexts", None)
    if stack is None:
        stack = _state.forward_contexts = []
    return stack


@contextlib.contextmanager
def while_gradient_of(forward_context):
    """Ops created inside build the gradient of the loop of `forward_context`.

    They may use the loop's tensors (and those of loops nested in it), as TF's
    gradient loop context may.
    """
    stack = _forward_contexts()
    stack.append(forward_context)
    try:
        yield
    finally:
        stack.pop()


def is_while_context(ctxt) -> bool:
    """Whether `ctxt` is a while loop's context."""
    return ctxt is not None and ctxt.IsWhileContext()


def get_containing_while_context(ctxt, stop_ctxt=None):
    """The innermost while context containing `ctxt` (itself included), or None.

    The search stops at `stop_ctxt` (returned if reached), as TF's.
    """
    while ctxt is not None:
        if ctxt.IsWhileContext() or ctxt is stop_ctxt:
            return ctxt
        ctxt = ctxt.outer_context
    return None


def is_containing_context(ctxt, maybe_containing_ctxt) -> bool:
    """Whether `maybe_containing_ctxt` is `ctxt` or encloses it (None encloses all)."""
    while ctxt is not maybe_containing_ctxt:
        if ctxt is None:
            return False
        ctxt = ctxt.outer_context
    return True


def _input_valid(op_type, op_ctxt, input_ctxt) -> tuple[bool, object]:
    """TF's rules: `(valid, while context of the op)`."""
    if input_ctxt is None or op_ctxt is input_ctxt:
        return True, None
    while_ctxt = get_containing_while_context(op_ctxt)
    input_while_ctxt = get_containing_while_context(input_ctxt)
    valid = False
    if while_ctxt is None:
        # Neither in a while loop (one or both in conds: allowed, although the run
        # fails when the input's branch is not taken); an `Enter` or `Switch` takes
        # its input outside the loop or branch by construction.
        valid = input_while_ctxt is None or op_type in ("Enter", "RefEnter", "Switch", "RefSwitch")
    elif is_containing_context(while_ctxt, input_while_ctxt):
        # The input's while loop contains the op's (or the input is in no loop).
        valid = True
    for forward in reversed(_forward_contexts()):
        # The op builds the gradient of `forward`: it reads that loop's tensors (or
        # those of its ancestors, or of loops and conds directly inside it).
        if valid:
            break
        valid = is_containing_context(forward, input_while_ctxt) or (
            input_while_ctxt is not None and forward is input_while_ctxt.outer_context
        )
    return valid, while_ctxt


def check_inputs_from_valid_context(op_name, op_type, op_ctxt, inputs) -> None:
    """Checks that an op (about to be created in `op_ctxt`) may use each of `inputs`.

    Raises:
        ValueError: If an input is a tensor of a while loop that does not contain the
            op, with TF's message.
    """
    for t in inputs:
        input_op = t.op
        input_ctxt = input_op._control_flow_context
        valid, while_ctxt = _input_valid(op_type, op_ctxt, input_ctxt)
        if valid:
            continue
        if while_ctxt is not None:
            error_msg = (
                f"Cannot use '{input_op.name}' as input to '{op_name}' because they are in "
                "different while loops."
            )
        else:
            error_msg = (
                f"Cannot use '{input_op.name}' as input to '{op_name}' because "
                f"'{input_op.name}' is in a while loop."
            )
        logging.info(
            "%s\n\n%s while context: %s\n%s while context: %s",
            error_msg,
            op_name,
            while_ctxt,
            input_op.name,
            get_containing_while_context(input_ctxt),
        )
        raise ValueError(error_msg + " See info log for more details.")
