"""tests/support/rewrite_cache.py: the rewritten test modules it caches are the ones pytest loads."""

from __future__ import annotations

from _pytest.assertion.rewrite import _read_pyc

from tests.support import rewrite_cache


def test_a_cached_module_is_current_for_pytest_and_rewritten(tmp_path):
    source = tmp_path / "test_sample.py"
    source.write_text("def test_it():\n    x = 1\n    assert x == 2\n")
    assert rewrite_cache.write(source)
    code = _read_pyc(source, rewrite_cache.cached_path(source))
    assert code is not None, "pytest would rewrite it again"
    assert "@pytest_ar" in code.co_names  # the asserts were rewritten, as pytest's own would be
    namespace: dict = {}
    exec(code, namespace)
    try:
        namespace["test_it"]()
    except AssertionError as error:
        assert "assert 1 == 2" in str(error)  # pytest's explanation, not a bare AssertionError
    else:
        raise AssertionError("the rewritten test passed")


def test_a_module_that_does_not_parse_is_left_to_pytest(tmp_path):
    source = tmp_path / "test_broken.py"
    source.write_text("def test_it(:\n")
    assert not rewrite_cache.write(source)
    assert not rewrite_cache.cached_path(source).exists()


def test_every_test_module_and_conftest_is_covered():
    modules = {path.name for path in rewrite_cache.test_modules(rewrite_cache.ROOT / "tests")}
    assert {"test_rewrite_cache.py", "conftest.py", "test_cpu_report.py"} <= modules
    assert "rewrite_cache.py" not in modules  # a support module: pytest does not rewrite it
