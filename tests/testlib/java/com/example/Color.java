package com.example;
public enum Color { RED, GREEN }
