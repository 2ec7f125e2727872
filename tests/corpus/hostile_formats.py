"""The hostile corpus's case whose stored format is hostile (registered in ``hostile_corpus.CASES``): a thread
written through LangGraph's ``EncryptedSerializer`` (AES, pycryptodome, as LangGraph ships it) by the corpus's
``SqliteSaver`` connection, then damaged by raw SQL where no serializer would write such bytes:

* the newest checkpoint's encrypted blob is 20 bytes, shorter than AES-EAX's nonce and tag, so no key reads it;
* one write's encrypted value is 48 bytes of noise: the right key's authentication fails on it.

Without the key (the corpus sweeps) the thread is encrypted like any other; with ``ENCRYPTED_KEY`` every other
checkpoint reads, and each damaged value is one clear line. Its message holds ``ENCRYPTED_SECRET``, which no output
may show: encrypted without the key, masked with it.
"""

from __future__ import annotations

import dataclasses

from hostile_corpus import Planting, case
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.serde.encrypted import EncryptedSerializer
from langgraph.checkpoint.sqlite import SqliteSaver

ENCRYPTED = "hostile-encrypted"
ENCRYPTED_KEY = "corpus-aes-key-0123456789abcdef!"  # 32 characters
ENCRYPTED_SECRET = "sk-ant-api03-EncryptedCorpusFakeKey0123456789abcdefABCDEF"
SHORT_CIPHERTEXT = b"\x01" * 20
NOISE = bytes(range(48))


@case("encrypted-damage", "an encrypted thread (EncryptedSerializer) whose newest checkpoint is 20 bytes, shorter than "
      "any AES ciphertext, and one of whose writes is noise the key does not authenticate", threads=[ENCRYPTED],
      secrets=[ENCRYPTED_SECRET], owner="formats")
def _encrypted(p: Planting) -> None:
    serde = EncryptedSerializer.from_pycryptodome_aes(key=ENCRYPTED_KEY.encode())
    encrypted = dataclasses.replace(p, saver=SqliteSaver(p.conn, serde=serde))
    encrypted.run(ENCRYPTED, {"messages": [HumanMessage(f"deploy with api_key={ENCRYPTED_SECRET}", id="enc-1")]},
                  {"messages": [AIMessage("Deployed.", id="enc-2")], "title": "Encrypted deploy"})
    p.sql("UPDATE checkpoints SET checkpoint = ? WHERE thread_id = ? AND checkpoint_id = "
          "(SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = ?)", [SHORT_CIPHERTEXT, ENCRYPTED, ENCRYPTED])
    p.sql("UPDATE writes SET value = ? WHERE thread_id = ? AND channel = 'messages' AND checkpoint_id = "
          "(SELECT min(checkpoint_id) FROM writes WHERE thread_id = ? AND channel = 'messages')",
          [NOISE, ENCRYPTED, ENCRYPTED])
