package com.example;
public class Point { public double x; public double y; }
