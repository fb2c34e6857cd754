"""Grid A* and JPS: Moving AI's optimal lengths, a hand-derived detour, boolean arrays."""

import numpy as np
import pytest

import navkit
from conftest import ROOT

MOVINGAI = ROOT.parent / "shared" / "movingai"


@pytest.mark.parametrize("name", ["dao/arena", "mazes/maze512-1-0", "random/random512-10-0"])
def test_moving_ai_optimal_lengths(name: str) -> None:
    maps = list((MOVINGAI / "maps").glob(f"{name}*.map"))
    assert maps, f"{name} is missing from ../shared/movingai"
    grid = navkit.Grid.load_movingai(maps[0])
    scen = navkit.load_movingai_scenario(MOVINGAI / "scenarios" / f"{maps[0].relative_to(MOVINGAI / 'maps')}.scen")
    n = min(len(scen["starts"]), 300)
    for algorithm in ("astar", "jps"):
        got = grid.find_paths(scen["starts"][:n], scen["goals"][:n], algorithm=algorithm)
        assert got["complete"].all()
        # The benchmark gives lengths to 6 significant digits.
        np.testing.assert_allclose(got["cost"], scen["optimal_length"][:n], rtol=1e-5, atol=1e-4)
    one = grid.find_path(tuple(scen["starts"][n - 1]), tuple(scen["goals"][n - 1]), algorithm="jps")
    assert one.cost == pytest.approx(scen["optimal_length"][n - 1], rel=1e-5)
    assert tuple(one.cells[0]) == tuple(scen["starts"][n - 1]) and tuple(one.cells[-1]) == tuple(scen["goals"][n - 1])


def test_a_boolean_array_and_a_hand_derived_detour() -> None:
    # ....      From (0, 1) to (3, 1) round the wall, no corner cutting: 5 straight moves;
    # .@@.      cutting corners: a diagonal up, one straight, a diagonal down: 2 sqrt(2) + 1.
    # ....
    cells = np.ones((3, 4), dtype=bool)
    cells[1, 1:3] = False
    grid = navkit.Grid(cells)
    assert (grid.width, grid.height) == (4, 3)
    np.testing.assert_array_equal(grid.to_array(), cells)
    assert grid.find_path((0, 1), (3, 1)).cost == pytest.approx(5.0)
    assert grid.find_path((0, 1), (3, 1), algorithm="jps").cost == pytest.approx(5.0)
    cut = grid.find_path((0, 1), (3, 1), corner_cutting="always")
    assert cut.cost == pytest.approx(2 * np.sqrt(2) + 1)
    assert cut.cells.shape == (4, 2) and cut.status == "complete"
    walled = cells.copy()
    walled[:, 2] = False
    part = navkit.Grid(walled).find_path((0, 1), (3, 1))
    assert part.status == "partial"
    with pytest.raises(navkit.InvalidArgumentError, match="blocked"):
        grid.find_path((1, 1), (3, 1))
    with pytest.raises(navkit.InvalidArgumentError, match="outside"):
        grid.find_path((0, 0), (9, 9))
    with pytest.raises(ValueError, match="algorithm"):
        grid.find_path((0, 0), (3, 0), algorithm="dijkstra")
    with pytest.raises(TypeError):
        navkit.Grid(np.ones((3, 3)))  # floats, not booleans
    with pytest.raises(ValueError, match=r"starts\[0\]"):
        grid.find_paths(np.array([[-1, 0]]), np.array([[0, 0]]))
