// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.31;

/// Code an account delegates to with an EIP-7702 authorization: its storage is the account's own.
contract Greeter7702 {
    event Greeted(address indexed account, address indexed caller);

    uint256 public greetings;

    function greet() external {
        greetings += 1;
        emit Greeted(address(this), msg.sender);
    }
}
