"""``--cluster`` is read without dask, and a bad address is bad input at its flag."""

from __future__ import annotations

import pytest

from faier.cluster.address import ClusterAddress, read_cluster
from faier.core.options import Options
from faier.errors import SpecError


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("local", ClusterAddress("local")),
        ("local:3", ClusterAddress("local", workers=3)),
        (" local:1 ", ClusterAddress("local", workers=1)),
        ("tcp://127.0.0.1:8786", ClusterAddress("remote", url="tcp://127.0.0.1:8786")),
        (
            "tls://scheduler.example.org:8786",
            ClusterAddress("remote", url="tls://scheduler.example.org:8786"),
        ),
        ("tcp://[::1]:8786", ClusterAddress("remote", url="tcp://[::1]:8786")),
    ],
)
def test_addresses(text: str, expected: ClusterAddress) -> None:
    assert read_cluster(text) == expected
    assert Options.parse(cluster=text).cluster == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "remote",
        "local:0",
        "local:x",
        "local:-2",
        "http://host:80",
        "tcp://",
        "tcp://h:99999",
        "8786",
    ],
)
def test_bad_addresses_name_the_flag(text: str) -> None:
    with pytest.raises(SpecError) as raised:
        Options.parse(cluster=text)
    assert raised.value.where == "--cluster"
    assert raised.value.fix


def test_not_an_address() -> None:
    with pytest.raises(SpecError, match="not a cluster address"):
        Options.parse(cluster=3)


def test_show() -> None:
    assert read_cluster("local").show() == "local"
    assert read_cluster("local:4").show() == "local:4"
    assert read_cluster("tcp://10.0.0.1:8786").show() == "tcp://10.0.0.1:8786"


def test_client_object_is_kept(client: object) -> None:
    address = Options.parse(cluster=client).cluster
    assert address is not None and address.kind == "client" and address.client is client
    assert address.show().startswith("tcp://127.0.0.1:")
