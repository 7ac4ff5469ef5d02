// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// A small contract for the real-client tests: a constructor argument, a setter that emits an
/// event with indexed arguments, view functions, and a revert path with a reason string.
contract Store {
    event ValueChanged(address indexed author, uint256 indexed oldValue, uint256 newValue, string note);

    uint256 public constant LIMIT = 1_000_000;

    address public owner;
    uint256 private value;
    uint256 public changes;

    constructor(uint256 initial) {
        owner = msg.sender;
        value = initial;
    }

    function set(uint256 newValue, string calldata note) external {
        require(newValue <= LIMIT, "Store: value too large");
        emit ValueChanged(msg.sender, value, newValue, note);
        value = newValue;
        changes += 1;
    }

    function get() external view returns (uint256) {
        return value;
    }
}
